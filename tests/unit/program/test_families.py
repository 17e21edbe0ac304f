"""Op families are registered with their draw functions; the table's modules are found, not listed; an unknown family is
refused when the table is gathered; the generator draws an op by its family's function alone."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from numfuzz.address import CaseAddress
from numfuzz.program import ops as ops_module
from numfuzz.program.families import FAMILIES, alone, family_of, register
from numfuzz.program.generator import GenConfig, _Builder, generate
from numfuzz.program.ir import GraphError
from numfuzz.program.op_spec import OpSpec, elementwise, one_term, same
from numfuzz.program.ops import OPS


def test_every_module_of_the_op_table_is_gathered():
    files = {p.stem for p in (Path(ops_module.__file__).parent / "op_table").glob("*.py") if not p.stem.startswith("_")}
    modules = ops_module._table_modules()
    assert {m.__name__.rsplit(".", 1)[1] for m in modules} == files
    assert [spec.name for m in modules for spec in m.SPECS] == list(OPS)


def test_every_op_names_a_registered_family():
    for op in OPS.values():
        assert family_of(op).name == op.family, op.name
    assert {op.family for op in OPS.values()} <= set(FAMILIES)


def test_an_unknown_family_is_refused_when_the_table_is_gathered(monkeypatch):
    probe = OpSpec("probe", 1, "no_such_family", same, terms=one_term, bound="correctly_rounded", call="{0}")
    monkeypatch.setattr(ops_module, "_table_modules", lambda: [SimpleNamespace(SPECS=[probe])])
    with pytest.raises(ValueError, match="'probe': family 'no_such_family' is none of"):
        ops_module._gathered()


def test_a_family_is_registered_once():
    with pytest.raises(ValueError, match="registered twice"):
        register("unary", alone)


def test_a_pointwise_family_or_one_along_a_dim_takes_a_0d_value():
    assert family_of(OPS["exp"]).pointwise and family_of(OPS["add"]).pointwise
    assert not family_of(OPS["sum"]).pointwise and not family_of(OPS["cat"]).pointwise
    assert family_of(OPS["sum"]).zero_d and not family_of(OPS["cat"]).zero_d and not family_of(OPS["layer_norm"]).zero_d
    b = _Builder(CaseAddress(0).graph_streams(), GenConfig(), "cpu")
    x = b.new_input((), "fp32")
    assert b.args_for(OPS["exp"], x)[0] == [x]
    args, attrs = b.args_for(OPS["sum"], x)  # along dim 0 or -1, which torch reads as a dim of one element
    assert args == [x] and attrs["dim"] in (0, -1)
    for refused in ("cat", "layer_norm"):
        with pytest.raises(GraphError, match="needs a dim"):
            b.args_for(OPS[refused], x)


def test_the_generator_draws_an_op_by_its_registered_family_alone(monkeypatch):
    """A family registered from outside the generator, and an op of it, are drawn: its function chose the arguments."""

    def both_the_first(b, op, first, attrs):
        return [first, first], attrs

    monkeypatch.setitem(FAMILIES, "self_pair", SimpleNamespace(name="self_pair", draw=both_the_first, pointwise=False, zero_d=False))
    monkeypatch.setitem(OPS, "probe_pair", OpSpec("probe_pair", 2, "self_pair", elementwise, terms=one_term, bound="table", call="torch.add({0}, {1})"))
    drawn = [n for seed in range(10) for n in generate(seed, GenConfig(ops=("probe_pair",)))[0].nodes if n.op == "probe_pair"]
    assert drawn and all(n.args[0] == n.args[1] for n in drawn)
