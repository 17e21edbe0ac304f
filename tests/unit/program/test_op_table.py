"""Every op in the table: it has a lowering, draws valid attributes, the generator draws it, and eager and the
float64 reference run it with the shapes and dtypes the table infers. No compiler."""

import random
import warnings

import pytest
import torch

from numfuzz.corpus.make import make_case
from numfuzz.program.dtypes import is_integer
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.op_spec import DOMAINS
from numfuzz.program.ops import OPS, infer_specs, own_ops
from numfuzz.program.samples import draw_samples
from numfuzz.program.values import Recipe, draw_values, round_to, torch_dtype
from numfuzz.run_spec import RunSpec

# Alone, an op may need a first value of some rank: the generator's first input is random, so seeds vary it.
SEEDS = 60


def graph_with(op: str) -> tuple[Graph, list]:
    """The first generated graph, over seeds 0.., whose ops include `op`."""
    config = GenConfig(min_nodes=1, max_nodes=3, ops=(op,))
    for seed in range(SEEDS):
        graph, recipes = generate(seed, config)
        if any(n.op == op for n in graph.nodes):
            return graph, recipes
    raise AssertionError(f"{op} not drawn in {SEEDS} seeds")


def test_the_table_has_at_least_a_hundred_ops_each_with_data():
    assert len(OPS) >= 100
    for op in OPS.values():
        assert op.weight > 0 and op.arity >= 1 and op.dtypes
        assert all(d in DOMAINS for d in op.domains), op.name
        assert (op.family == "fresh") == (op.operands is not None), op.name


def test_every_op_has_a_lowering():
    assert {name for name, spec in own_ops().items() if not spec.call} == {"cast", "slice"}  # the two lowered by hand


@pytest.mark.parametrize("name", sorted(own_ops()))
def test_attributes_drawn_are_accepted(name):
    op, rng, tried = OPS[name], random.Random(name), 0
    for shape in [(4,), (3, 4), (2, 4, 6), (2, 3, 4, 5)]:
        spec = TensorSpec(shape, "fp32")
        try:
            attrs = op.draw_attrs(rng, [spec]) if op.draw_attrs else {}
        except GraphError:
            continue
        assert all(isinstance(k, str) for k in attrs)
        Node.make(name, [0], **attrs).to_json()  # attributes are JSON data
        tried += 1
    assert tried, f"{name} drew attributes for no shape"


@pytest.mark.parametrize("name", sorted(own_ops()))
def test_generator_draws_it_and_eager_and_reference_agree_with_the_table(name):
    graph, recipes = graph_with(name)
    specs = infer_specs(graph)
    eager, reference = compile_source(lower(graph)), compile_source(lower(graph, reference=True))
    for sample in draw_samples(graph, recipes, seed=1, count=3):
        tensors = [round_to(v, s) for v, s in zip(sample, graph.inputs)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # var with too few values, and the like
            got, ref = eager(*tensors), reference(*[t.double() for t in tensors])
        for k, out in enumerate(graph.outputs):
            assert got[k].shape == specs[out].shape and got[k].dtype == torch_dtype(specs[out].dtype), (name, k)
            exact = torch_dtype(specs[out].dtype) if is_integer(specs[out].dtype) else torch.float64  # a bitcast's integers are eager's
            assert ref[k].shape == specs[out].shape and ref[k].dtype == exact, (name, k)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_domains_are_drawn_inside(domain):
    import numpy as np

    inside = {
        "any": lambda x: np.isfinite(x),
        "positive": lambda x: x > 0,
        "nonzero": lambda x: np.abs(x) >= 1e-3,
        "unit": lambda x: np.abs(x) < 1,
        "probability": lambda x: (0 < x) & (x < 1),
        "above_one": lambda x: x > 1,
        "sign": lambda x: np.abs(x) == 1,
        "index": lambda x: (x == np.floor(x)) & (0 <= x) & (x < 5),
    }[domain]
    rng = np.random.Generator(np.random.PCG64(0))
    for kind in ("normal", "uniform", "logmag", "tiny", "large"):
        values = draw_values(Recipe(kind, domain, bound=5 if domain == "index" else None), TensorSpec((500,), "fp32"), rng)
        assert inside(values).all(), kind
    if domain == "index":
        assert set(np.unique(values)) == {0, 1, 2, 3, 4}  # every class is drawn


def test_the_generator_keeps_node_values_in_their_domains():
    """A node's value feeding a domain gets a guard (abs, softsign, ...); a float input draws inside it. An integer
    program's values are its own (`values.draw_integers`): asin of an int8 is eager's to define, NaN included."""
    guarded = 0
    for seed in range(300):
        case = make_case(seed, RunSpec("eager", samples=2), GenConfig())  # no argument left outside its domain by chance
        n_in, specs = len(case.graph.inputs), infer_specs(case.graph)
        for node in case.graph.nodes:
            for i, a in enumerate(node.args):
                domain = OPS[node.op].domain(i)
                if is_integer(specs[a].dtype):  # an integer program's value, of whatever domain
                    continue
                if domain in ("unit", "probability", "above_one") and a >= n_in:
                    guard = case.graph.nodes[a - n_in].op
                    assert guard == {"unit": "softsign", "probability": "add_scalar", "above_one": "add_scalar"}[domain]
                    guarded += 1
                elif domain in ("unit", "probability") and a < n_in:
                    assert case.recipes[a].domain == domain
    assert guarded > 3
