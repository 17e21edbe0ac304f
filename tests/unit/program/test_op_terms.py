"""Every op states how many terms one output element sums (`OpSpec.terms`, what the judge's bounds grow with), and the
count is the real one: as many input elements as one output element's value depends on, found by float64 autograd."""

import pytest
import torch

from numfuzz.judge.rounding_error import reduced_length
from numfuzz.program.families import with_terms
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.op_spec import OpSpec, same
from numfuzz.program.ops import OPS, own_ops

SEEDS = 60


@pytest.mark.parametrize("name", sorted(own_ops()))
def test_every_op_states_its_terms_and_they_count_on_a_drawn_node(name):
    assert callable(OPS[name].terms), name
    for seed in range(SEEDS):
        graph, _ = generate(seed, GenConfig(min_nodes=1, max_nodes=3, ops=(name,)))
        found = [k for k, node in enumerate(graph.nodes) if node.op == name]
        for k in found:
            n = reduced_length(graph, k)
            assert isinstance(n, int) and not isinstance(n, bool) and n >= 1, (name, graph.nodes[k], n)
        if found:
            return
    raise AssertionError(f"{name} not drawn in {SEEDS} seeds")


def _most_dependencies(graph: Graph, arg: int) -> int:
    """The most elements of input `arg` that one output element's value depends on (nonzero derivatives)."""
    fn = compile_source(lower(graph, reference=True))
    gen = torch.Generator().manual_seed(0)
    inputs = [torch.randn(s.shape, generator=gen, dtype=torch.float64, requires_grad=True) for s in graph.inputs]
    out = fn(*inputs)[0].reshape(-1)
    most = 0
    for j in range(out.numel()):
        (grad,) = torch.autograd.grad(out[j], inputs[arg], retain_graph=True, allow_unused=True)
        most = max(most, 0 if grad is None else int((grad != 0).sum()))
    return most


def _graph(shapes: list[tuple[int, ...]], op: str, **attrs) -> Graph:
    return Graph(tuple(TensorSpec(s, "fp32") for s in shapes), (Node.make(op, list(range(len(shapes))), **attrs),), (len(shapes),))


POOL = {"stride": 1, "padding": 1, "ceil_mode": False}
CASES = {
    "relu": (_graph([(3, 4)], "relu"), 0),
    "sum along dim 1": (_graph([(3, 5, 2)], "sum", dim=1, keepdim=False), 0),
    "softmax along the last dim": (_graph([(3, 6)], "softmax", dim=-1), 0),
    "layer_norm_affine": (_graph([(3, 6), (6,), (6,)], "layer_norm_affine", eps=1e-5), 0),
    "group_norm": (_graph([(2, 6, 3)], "group_norm", num_groups=2, eps=1e-5), 0),
    "mse_loss, summed": (_graph([(3, 4), (3, 4)], "mse_loss", reduction="sum"), 0),
    "mse_loss, unreduced": (_graph([(3, 4), (3, 4)], "mse_loss", reduction="none"), 0),
    "conv2d, grouped 3x3": (_graph([(1, 4, 5, 5), (6, 2, 3, 3)], "conv2d", stride=1, padding=1, dilation=1, groups=2), 1),
    "bmm": (_graph([(2, 3, 5), (2, 5, 4)], "bmm"), 1),
    "addmm": (_graph([(3, 5), (5, 4), (3, 4)], "addmm", beta=1.0, alpha=1.0), 1),
    "einsum": (_graph([(2, 3, 5), (2, 5, 4)], "einsum", equation="bij,bjk->bik"), 1),
    "sdpa": (_graph([(2, 3, 4), (2, 6, 4), (2, 6, 5)], "sdpa", is_causal=False), 2),
    "max_pool2d": (_graph([(1, 2, 5, 5)], "max_pool2d", kernel_size=3, **POOL), 0),
    "avg_pool2d": (_graph([(1, 2, 5, 5)], "avg_pool2d", kernel_size=3, count_include_pad=True, **POOL), 0),
    "adaptive_avg_pool2d": (_graph([(1, 2, 7, 5)], "adaptive_avg_pool2d", output_size=(3, 2)), 0),
    "adaptive_avg_pool1d": (_graph([(2, 7)], "adaptive_avg_pool1d", output_size=3), 0),
    "interpolate, nearest": (_graph([(1, 1, 6, 6)], "interpolate", mode="nearest", align_corners=None, size=None, scale_factor=2.0), 0),
    "interpolate, bilinear": (_graph([(1, 1, 6, 6)], "interpolate", mode="bilinear", align_corners=False, size=None, scale_factor=2.0), 0),
    "interpolate, bicubic": (_graph([(1, 1, 6, 6)], "interpolate", mode="bicubic", align_corners=False, size=None, scale_factor=2.0), 0),
    "interpolate, trilinear": (_graph([(1, 1, 4, 4, 4)], "interpolate", mode="trilinear", align_corners=False, size=None, scale_factor=2.0), 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_terms_are_what_one_output_element_depends_on(case):
    graph, arg = CASES[case]
    assert reduced_length(graph, 0) == _most_dependencies(graph, arg)


def test_an_op_of_a_family_without_one_answer_must_state_its_terms():
    with pytest.raises(ValueError, match="'mine' of family 'fresh'.*terms="):
        with_terms(OpSpec("mine", 1, "fresh", same, bound="undocumented"))
    assert with_terms(OpSpec("mine", 1, "unary", same, bound="undocumented")).terms([TensorSpec((5,), "fp32")], {}) == 1
    assert all(spec.terms is not None for spec in OPS.values())  # the table holds every op with its terms
