"""`cross` (torch.linalg.cross): its shape rule is torch's, its float64 reference gives hand-computed values exactly, the
generator draws it by its family (`vec3`), a drawn graph lowers and runs, autocast leaves it alone, and a model's captured
`torch.cross` maps onto it."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
import torch

from numfuzz.model.mapping import Mapped, map_node
from numfuzz.model.region import capture_values
from numfuzz.program.autocast import with_region
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import OPS, infer_node, infer_specs
from numfuzz.program.samples import draw_samples
from numfuzz.program.values import round_to, torch_dtype

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("cross",)
E = 2.0**-23  # fp32's epsilon: 1 + E is the fp32 value after 1


def reference(a: list, b: list, dim: int = -1) -> torch.Tensor:
    ta, tb = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
    graph = Graph((TensorSpec(tuple(ta.shape), "fp32"), TensorSpec(tuple(tb.shape), "fp32")), (Node.make("cross", [0, 1], dim=dim),), (2,))
    (out,) = compile_source(lower(graph, reference=True))(ta, tb)
    return out


def exact_cross(a: list[float], b: list[float]) -> list[float]:
    """a x b in rationals, rounded once to float64."""
    fa, fb = [Fraction(v) for v in a], [Fraction(v) for v in b]
    return [float(fa[(i + 1) % 3] * fb[(i + 2) % 3] - fa[(i + 2) % 3] * fb[(i + 1) % 3]) for i in range(3)]


@pytest.mark.parametrize(
    ("a", "b", "dim"),
    [
        ((3,), (3,), -1),
        ((4, 3), (4, 3), 1),
        ((4, 3), (1, 3), -1),
        ((2, 1, 3), (1, 5, 3), 2),
        ((3, 2), (3, 2), 0),
        ((3, 3), (3, 1), 0),
        ((4, 3), (3,), -1),  # ranks differ: torch refuses
        ((3, 4), (1, 4), 0),  # length 1 along the dim: no broadcasting there
        ((4, 2), (4, 2), -1),  # no length 3
        ((4, 3), (5, 3), -1),  # off the dim, sizes that do not broadcast
    ],
)
def test_the_shape_rule_is_torchs(a, b, dim):
    try:
        expected = tuple(torch.linalg.cross(torch.zeros(a), torch.zeros(b), dim=dim).shape)
    except RuntimeError:
        expected = None
    try:
        got = infer_node(Node.make("cross", [0, 1], dim=dim), [TensorSpec(a, "fp32"), TensorSpec(b, "fp32")]).shape
    except GraphError:
        got = None
    assert got == expected


def test_the_reference_gives_hand_computed_values_exactly():
    assert reference([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]).tolist() == [-3.0, 6.0, -3.0]
    # near-parallel vectors: 1 * 1 - (1 + E)^2 = -2E - E^2 keeps its E^2 (fp32 arithmetic would lose it)
    a, b = [1.0, 1 + E, 3.0], [1 + E, 1.0, 3.0]
    assert exact_cross(a, b) == [3 * E, 3 * E, -2 * E - E * E]
    assert reference(a, b).tolist() == exact_cross(a, b)
    x = [float(torch.tensor(v, dtype=torch.float32)) for v in (0.1, -7.25, 1e-3)]  # fp32 values, as a program's inputs are
    assert reference(x, x).tolist() == [0.0, 0.0, 0.0]  # their products are exact in float64: cross(x, x) is 0 exactly
    # float64 values (a value computed in the reference): torch's float64 kernel fuses a product into the difference,
    # which leaves its rounding, within float64's ULP of the products: far below any program dtype's ULP
    x = [0.1, -7.25, 1e-3]
    assert 0 < reference(x, x).abs().max().item() <= 2.0**-52 * 7.25 * 0.1
    columns = reference([[1.0, 0.5], [2.0, -1.5], [3.0, 2.25]], [[4.0, 3.0], [5.0, 0.125], [6.0, -8.0]], dim=0)
    assert columns.T.tolist() == [exact_cross([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), exact_cross([0.5, -1.5, 2.25], [3.0, 0.125, -8.0])]
    broadcast = reference([[1.0, 2.0, 3.0], [-2.0, 0.5, 1.0]], [[0.25, -1.0, 4.0]])
    assert broadcast.tolist() == [exact_cross([1.0, 2.0, 3.0], [0.25, -1.0, 4.0]), exact_cross([-2.0, 0.5, 1.0], [0.25, -1.0, 4.0])]


def _drawn(seeds: int = 40) -> list[tuple[Graph, Node]]:
    """Every cross node of the graphs of these seeds, with its graph."""
    return [(graph, n) for seed in range(seeds) for graph in [_graph(seed)[0]] for n in graph.nodes if n.op == "cross"]


def _graph(seed: int) -> tuple[Graph, list]:
    return generate(seed, GenConfig(ops=("cross",), max_nodes=3))


def test_the_generator_draws_it_with_vectors_along_its_dim():
    drawn = _drawn()
    assert len(drawn) >= 20
    for graph, node in drawn:
        specs = infer_specs(graph)
        a, b = specs[node.args[0]].shape, specs[node.args[1]].shape
        assert len(a) == len(b) and a[node.attr("dim")] == b[node.attr("dim")] == 3
    assert {node.attr("dim") < 0 for _, node in drawn} == {True, False}
    partners = [infer_specs(g)[n.args[1]].shape for g, n in drawn]
    assert any(1 in s and 1 not in infer_specs(g)[n.args[0]].shape for s, (g, n) in zip(partners, drawn))  # one broadcasts
    assert any(n.args[0] == n.args[1] or n.args[1] >= len(g.inputs) for g, n in drawn)  # a value already drawn as partner


def test_a_drawn_graph_lowers_runs_and_stays_near_its_reference():
    graph, recipes = next(drawn for drawn in map(_graph, range(20)) if [n.op for n in drawn[0].nodes].count("cross") >= 2)
    specs = infer_specs(graph)
    eager, ref = compile_source(lower(graph)), compile_source(lower(graph, reference=True))
    for sample in draw_samples(graph, recipes, seed=3, count=3):
        tensors = [round_to(v, s) for v, s in zip(sample, graph.inputs)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = eager(*tensors), ref(*[t.double() for t in tensors])
        for k, out in enumerate(graph.outputs):
            assert got[k].shape == specs[out].shape and got[k].dtype == torch_dtype(specs[out].dtype)
            finite = torch.isfinite(want[k]) & torch.isfinite(got[k].double())
            scale = want[k].abs().amax().clamp_min(1e-30)
            assert ((got[k].double() - want[k]).abs()[finite] <= 0.1 * scale).all()  # close where it does not cancel away


@pytest.mark.parametrize("dtype", ["fp32", "fp16"])
def test_autocast_leaves_it_alone(dtype):
    spec = TensorSpec((4, 3), dtype)
    graph = with_region(Graph((spec, spec), (Node.make("cross", [0, 1], dim=-1),), (2,)), range(1), "bf16")
    assert OPS["cross"].autocast == "" and infer_specs(graph)[2].dtype == dtype
    (out,) = compile_source(lower(graph))(*[torch.rand(4, 3).to(torch_dtype(dtype)) for _ in range(2)])
    assert out.dtype == torch_dtype(dtype)


def test_a_captured_cross_maps_onto_it():
    a, b = torch.randn(5, 3), torch.randn(5, 3)
    (gm, _), *_ = capture_values(lambda a, b: (torch.cross(a, b, dim=-1), torch.linalg.cross(b, a, dim=1)), (a, b), {})
    mapped = [map_node(n) for n in gm.graph.nodes if n.op == "call_function"]
    assert [(m.op, m.attrs) for m in mapped if isinstance(m, Mapped)] == [("cross", {"dim": -1}), ("cross", {"dim": 1})]
