"""Reductions with `dtype=`: torch casts the argument to the dtype and reduces in it, so the float64 reference rounds the
argument there once (as at a cast) and reduces exactly; values written out by hand. Widening rounds nothing; a dropped
cast (`exact_casts`) leaves the argument as it was, and the cast is one the cast_dropped cause looks at."""

import pytest
import torch

from numfuzz.judge.cast_dropped import narrowing_casts
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("sum_dtype", "mean_dtype", "prod_dtype", "cumsum_dtype")

A, B = 1 + 2**-10, 1 + 3 * 2**-9  # in bf16 (7 fraction bits): 1 (a tenth of an ULP away) and 1 + 2^-7 (three quarters of one)


def _graph(op: str, dtype: str, shape: tuple, source: str = "fp32", **attrs) -> Graph:
    return Graph((TensorSpec(shape, source),), (Node.make(op, [0], dtype=dtype, **attrs),), (1,))


def _reference(graph: Graph, x: list, exact_casts: frozenset[int] = frozenset()) -> list:
    (out,) = compile_source(lower(graph, reference=True, exact_casts=exact_casts))(torch.tensor(x, dtype=torch.float64))
    assert out.dtype == torch.float64
    return out.tolist()


@pytest.mark.parametrize(
    "op, attrs, x, want, unrounded",
    [
        ("sum_dtype", {"dim": 0, "keepdim": False}, [A, A, B], 1 + 1 + (1 + 2**-7), 2 * A + B),
        ("mean_dtype", {"dim": -1, "keepdim": True}, [A, B], [(2 + 2**-7) / 2], [(A + B) / 2]),
        ("prod_dtype", {"dim": 0, "keepdim": False}, [B, B, A], (1 + 2**-7) ** 2, B * B * A),
        ("cumsum_dtype", {"dim": 0}, [A, B, 2 + 2**-9], [1, 2 + 2**-7, 4 + 2**-7], [A, A + B, A + B + 2 + 2**-9]),
    ],
)
def test_the_argument_is_rounded_to_the_dtype_once(op, attrs, x, want, unrounded):
    graph = _graph(op, "bf16", (len(x),), **attrs)
    assert infer_specs(graph)[1].dtype == "bf16"
    assert _reference(graph, x) == want
    assert _reference(graph, x, exact_casts=frozenset({0})) == pytest.approx(unrounded, rel=1e-15)  # the cast dropped
    assert narrowing_casts(graph, 1) == [0]


def test_eager_computes_in_the_dtype_as_the_reference_says():
    """Eager's sum is the reference's, a bf16 number: the terms were rounded first; the exact sum, also a bf16 number, is not it."""
    x = [1 + 2**-8 + 2**-12, -1.0]  # just past a tie: rounds up to 1 + 2^-7
    eager = torch.sum(torch.tensor(x, dtype=torch.float32), dim=0, dtype=torch.bfloat16)
    assert eager.dtype == torch.bfloat16 and eager.item() == _reference(_graph("sum_dtype", "bf16", (2,), dim=0, keepdim=False), x) == 2**-7
    assert x[0] + x[1] == 2**-8 + 2**-12


def test_widening_rounds_nothing():
    x = [1 + 2**-7, 2**-20]  # bf16 numbers; their sum is no bf16 number
    graph = _graph("sum_dtype", "fp32", (2,), source="bf16", dim=0, keepdim=False)
    assert infer_specs(graph)[1].dtype == "fp32"
    assert _reference(graph, x) == x[0] + x[1]
    assert narrowing_casts(graph, 1) == []


def test_gradients_flow_back_through_the_rounded_cast():
    graph = _graph("sum_dtype", "bf16", (2,), dim=0, keepdim=False)
    x = torch.tensor([A, B], dtype=torch.float64, requires_grad=True)
    (out,) = compile_source(lower(graph, reference=True, grad=True))(x)
    out.backward(torch.tensor(1 + 2**-9, dtype=torch.float64))  # the upstream gradient, rounded to bf16 on its way back
    assert out.item() == 2 + 2**-7 and x.grad.tolist() == [1.0, 1.0]
