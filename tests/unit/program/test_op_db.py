"""The op databases as numfuzz ops: the snapshot's forms infer their samples' results, lower to their calls, and chain
into programs eager runs; integer programs are drawn and judged exactly."""

from __future__ import annotations

import warnings
from collections import Counter

import pytest
import torch

from numfuzz.corpus.make import make_case
from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import is_integer
from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.lowering import lower
from numfuzz.program.op_db.calls import DTYPE, FORM
from numfuzz.program.op_db.entries import snapshot
from numfuzz.program.op_db.sources import Unusable, lambda_of, write_call, write_lambda
from numfuzz.program.op_table.database import REFUSED, SPECS
from numfuzz.program.ops import DATABASE, OPS, infer_specs
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunSpec
from numfuzz.targets import resolve

DATABASE_OPS = tuple(name for name, spec in OPS.items() if spec.family == DATABASE)


def test_the_databases_give_at_least_500_ops_and_each_refused_one_says_why():
    versions, entries = snapshot()
    assert versions["torch"] and len(SPECS) >= 500
    assert len(entries) == len(SPECS) + len(REFUSED)
    assert all(why.strip() for why in REFUSED.values())
    reasons = Counter(why.split(":")[0] for why in REFUSED.values())
    assert reasons["random"] >= 10 and any("complex" in r for r in reasons)  # dropout, bernoulli, ...; fft's results


def _sampled(form, first_dtype: str = "fp32") -> Graph:
    """A one-node program of a form, its tensors of its sample's shapes (floats in `first_dtype`)."""
    inputs = tuple(TensorSpec(a.shape, first_dtype if a.floating else a.dtype) for a in form.args)
    attrs = {FORM: form.call, **({DTYPE: first_dtype} if "{dtype}" in form.call else {})}
    return Graph(inputs, (Node.make("x", range(len(inputs)), **attrs),), (len(inputs),))


def test_every_forms_result_is_inferred_as_its_sample_gave_it():
    """Shapes on meta tensors (or, without a meta function, the sample's) are the recorded results', for every form: a
    form is inferred right or refused (a GraphError, and the generator draws another), never inferred wrong."""
    _, entries = snapshot()
    checked, refused = 0, []
    for op in entries:
        if op.refused or not op.forms:
            continue
        for form in op.forms:
            graph = _sampled(form, form.args[0].dtype if not form.args[0].floating else "fp32")
            graph = Graph(graph.inputs, (Node(op.name, graph.nodes[0].args, graph.nodes[0].attrs),), graph.outputs)
            try:
                spec = infer_specs(graph)[-1]
            except GraphError:  # a call this torch lacks, or one whose meta function refuses what its sample held (a mask)
                refused.append((op.name, form.call))
                continue
            assert spec.shape == form.shape, (op.name, form.call, spec, form.shape)
            checked += 1
    assert checked >= 3500 and len(refused) <= checked // 20, refused[:20]


def test_a_database_node_lowers_to_its_call_and_its_reference_runs_in_float64():
    graph = Graph(
        (TensorSpec((3, 4), "bf16"),),
        (Node.make("db.sum", [0], **{FORM: "torch.sum({0}, dim=1, dtype={dtype})", DTYPE: "bf16"}),),
        (1,),
    )
    assert "t0 = torch.sum(x0, dim=1, dtype=torch.bfloat16)" in lower(graph)
    reference = lower(graph, reference=True)
    assert "torch.sum(x0, dim=1, dtype=torch.float64)" in reference and "torch.set_default_dtype(torch.float64)" in reference


def test_a_call_is_written_from_a_sample_with_its_tensors_as_placeholders():
    from types import SimpleNamespace

    x, y = torch.ones(2, 3), torch.tensor([0, 1])
    sample = SimpleNamespace(input=x, args=([x, x], 1), kwargs={"alpha": float("inf"), "dtype": torch.float32, "index": y})
    written = write_call("torch.f", False, sample)
    assert written.call == "torch.f({0}, [{1}, {2}], 1, alpha=float('inf'), dtype={dtype}, index={3})"
    assert written.kinds == ["value", "value", "value", "int"] and written.dtype_placeholder
    with pytest.raises(Unusable, match="complex"):
        write_call("torch.f", False, SimpleNamespace(input=x, args=(1j,), kwargs={}))
    method = write_call("addcmul_", True, SimpleNamespace(input=x, args=(x, x), kwargs={"value": 0.5}))
    assert method.call == "{0}.addcmul_({1}, {2}, value=0.5)"


def test_a_databases_lambda_is_written_as_the_call_it_makes():
    from types import SimpleNamespace

    reorder = lambda weight, idx, **kwargs: torch.nn.functional.embedding(idx, weight, **kwargs)  # noqa: E731
    sample = SimpleNamespace(input=torch.ones(4, 2), args=(torch.tensor([0, 3]),), kwargs={"padding_idx": 1})
    written = write_lambda(lambda_of(reorder), sample)
    assert written.call == "torch.nn.functional.embedding({1}, {0}, padding_idx=1)"
    helper = lambda x: sorted(x)  # noqa: E731 - a function of the test suite's own: not a public call
    with pytest.raises(Unusable, match="helper"):
        write_lambda(lambda_of(helper), SimpleNamespace(input=torch.ones(2), args=(), kwargs={}))


def test_database_programs_chain_run_in_eager_and_are_rarely_refused():
    """Programs of database ops only: eager runs most (a form may need values numfuzz does not draw: a positive-definite
    matrix), and none gives a shape or dtype the table did not infer."""
    space = GenConfig.default(ops=DATABASE_OPS)
    eager, reasons = resolve("eager"), Counter()
    for seed in range(60):
        case = make_case(seed, RunSpec("eager", samples=2), space)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = evaluate(case.graph, case.tensors(), eager, "cpu")
        reasons["op table says" in outcome.detail] += 1
        reasons[outcome.verdict.value] += 1
    assert reasons[True] <= 1, reasons
    assert reasons["equal"] + reasons["more_accurate"] >= 45 and not reasons["exact_mismatch"] and not reasons["less_accurate"], reasons


def test_integer_programs_are_drawn_by_default_and_judged_exactly():
    graphs = [generate(seed, GenConfig.default())[0] for seed in range(150)]
    integer = [g for g in graphs if any(is_integer(s.dtype) for s in infer_specs(g)[len(g.inputs) :])]
    assert len(integer) >= 15
    graph = next(g for g in integer if any(is_integer(infer_specs(g)[o].dtype) for o in g.outputs))
    case = make_case(graphs.index(graph), RunSpec("eager", samples=2))
    assert evaluate(case.graph, case.tensors(), resolve("eager"), "cpu").verdict is not Verdict.EXACT_MISMATCH


def test_integer_programs_reduce_past_a_vector_often():
    """An integer program's reductions (ReductionOpInfo) draw at INTEGER_REDUCTION_WEIGHT times their weight, and its
    first value has a vector's tail half the time: reductions over 16 integer elements or more in some 4% of graphs."""
    from numfuzz.program.op_db.family import INTEGER_REDUCTION_WEIGHT, REDUCTIONS, integer_weight

    assert {"db.sum", "db.prod", "db.argmax", "db.count_nonzero"} <= REDUCTIONS and "db.abs" not in REDUCTIONS
    assert integer_weight(OPS["db.sum"]) == OPS["db.sum"].weight * INTEGER_REDUCTION_WEIGHT
    long = 0
    for seed in range(600):
        graph = generate(seed, GenConfig.default())[0]
        specs = infer_specs(graph)
        long += any(n.op in REDUCTIONS and is_integer(specs[n.args[0]].dtype) and specs[n.args[0]].numel >= 16 for n in graph.nodes)
    assert long >= 10, long  # 61 of 1500 when written


def test_a_node_takes_the_form_it_drew_of_those_one_call_has():
    """torch.mul({0}, {1}) has a form per dtype and per sample's shapes: a float program's db.mul multiplies floats (keyed
    by the call alone, the last form, a bool one, won), and an integer program's its integers, or, in a mixed form,
    an integer first tensor by a float."""
    from numfuzz.program.op_db.calls import SAMPLE
    from numfuzz.program.op_db.family import FORMS, form_of

    muls = [f for f in FORMS["db.mul"] if f.call == "torch.mul({0}, {1})"]
    assert len({a.dtype for f in muls for a in f.args}) >= 4
    seen = Counter()
    for seed in range(400):
        graph = generate(seed, GenConfig.default(ops=("db.mul", "exp")))[0]
        specs = infer_specs(graph)
        for node in graph.nodes:
            if node.op == "db.mul":
                form = form_of(node.op, node.attr_dict)
                assert form is FORMS["db.mul"][node.attr(SAMPLE)]
                first = specs[node.args[0]].dtype
                seen[is_integer(first)] += 1
                if is_integer(first) and not form.integer:  # a mixed form (MIXED_FORMS): its other operands are floats
                    assert all(not is_integer(specs[a].dtype) for a in node.args[1:]), (node, first)
                    seen["mixed"] += 1
                else:
                    assert is_integer(first) == form.integer, (node, first)
    assert seen[True] and seen[False] >= 50, seen  # integer forms draw at INTEGER_FORMS, and in integer programs


def test_lists_of_tensors_are_drawn_and_run():
    """cat and stack take a list of tensors: written as a list of placeholders, drawn, and run in eager as inferred."""
    graphs = [generate(seed, GenConfig.default(ops=("db.cat", "db.stack", "neg")))[0] for seed in range(40)]
    listed = [g for g in graphs if any(n.op in ("db.cat", "db.stack") for n in g.nodes)]
    assert len(listed) >= 20 and any("torch.cat([" in lower(g) for g in listed)
    eager = resolve("eager")
    for seed in range(10):
        case = make_case(seed, RunSpec("eager", samples=1), GenConfig.default(ops=("db.cat", "db.stack", "neg")))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert evaluate(case.graph, case.tensors(), eager, "cpu").verdict in (Verdict.EQUAL, Verdict.MORE_ACCURATE)


def test_a_float64_value_is_drawn_in_float64_programs_only():
    """A form's `dtype=torch.float64` (softmax's) outside a float64 program would be judged against a reference that is
    eager's own float64 arithmetic: every compiled rounding would look less accurate (two campaigns' first findings)."""
    for seed in range(300):
        graph = generate(seed, GenConfig.default())[0]
        specs = infer_specs(graph)
        if any(s.dtype == "fp64" for s in specs):
            assert all(s.dtype == "fp64" for s in graph.inputs if not is_integer(s.dtype)), graph


def test_an_integer_value_meets_float_operands_in_a_float_form():
    """Type promotion across an integer or bool tensor and a float one (pytorch#197091: ldexp of a bool by an fp16
    tensor): integer programs draw float forms with an integer first tensor, and eager gives the dtypes inferred."""
    from numfuzz.program.dtypes import FLOAT_DTYPES
    from numfuzz.program.op_db.family import form_of

    mixed = []
    for seed in range(300):
        graph, _ = generate(seed, GenConfig(integers=1.0))
        specs = infer_specs(graph)
        for node in graph.nodes:
            form = form_of(node.op, dict(node.attrs))
            if form is not None and not form.integer and specs[node.args[0]].dtype not in FLOAT_DTYPES:
                mixed.append((seed, node.op, specs[node.args[0]].dtype, {specs[a].dtype for a in node.args[1:]}))
    assert len(mixed) >= 5 and all(others & set(FLOAT_DTYPES) or not others for _, _, _, others in mixed), mixed
    for seed in sorted({m[0] for m in mixed})[:5]:
        case = make_case(seed, RunSpec("eager", samples=1), GenConfig(integers=1.0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = evaluate(case.graph, case.tensors(), resolve("eager"), "cpu")
        assert "op table says" not in outcome.detail and outcome.verdict is not Verdict.EXACT_MISMATCH, (seed, outcome.detail)


def test_a_polynomials_degree_stays_small_in_integer_and_float_programs():
    """special.laguerre_polynomial_l(x, n) loops n times an element in eager's kernel: an integer program's edge value
    2**31 - 2 as n kept eager's float64 reference busy past the case's limit (a Thunder-main campaign's timeout)."""
    from numfuzz.program.op_db.family import DEGREES

    polynomials = tuple(op for op in OPS if op.startswith("db.special.") and "_polynomial_" in op)
    assert len(polynomials) >= 8, polynomials
    degrees = []
    for seed in range(60):
        for integers in (0.0, 1.0):
            case = make_case(seed, RunSpec("eager", samples=2), GenConfig.default(ops=(*polynomials, "neg"), integers=integers))
            inputs = case.tensors()[0]
            for node in case.graph.nodes:
                if node.op in polynomials and node.args[1] < len(inputs):
                    degrees.append(inputs[node.args[1]])
    assert len(degrees) >= 40
    assert all(0 <= float(n.min()) and float(n.max()) < DEGREES for n in degrees if n.numel())
