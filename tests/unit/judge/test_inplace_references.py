"""The in-place ops' float64 references against mpmath at 100 bits: each writes into a clone of its first argument (which
is left as it was), its operands broadcast to it; a write through a transposed view lands in the base where hand values say."""

import mpmath
import numpy as np
import pytest
import torch
from test_reference_values import ANY, assert_exact, f32

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = (
    "sub_inplace",
    "div_inplace",
    "mul_scalar_inplace",
    "lerp_inplace",
    "addcmul_inplace",
    "addcdiv_inplace",
    "clamp_inplace",
    "mul_inplace_view",
    "abs_inplace_windows",
)

X = [ANY[:4], ANY[4:8], ANY[7:]]  # (3, 4)
Y = [f32([0.3, -1.7, 2.5, 1e-3])]  # (1, 4): broadcast along the rows
W = [f32([0.25]), f32([0.75]), f32([-0.5])]  # (3, 1)
mpf = mpmath.mpf

CASES = {
    "sub_inplace": ([X, Y], {}, lambda x, y: x - y),
    "div_inplace": ([X, Y], {}, lambda x, y: x / y),
    "mul_scalar_inplace": ([X], {"value": 1.7}, lambda x: x * mpf(1.7)),
    "lerp_inplace": ([X, Y, W], {}, lambda x, y, w: x + w * (y - x)),
    "addcmul_inplace": ([X, Y, W], {"value": -0.3}, lambda x, y, w: x + mpf(-0.3) * y * w),
    "addcdiv_inplace": ([X, W, Y], {"value": 2.5}, lambda x, w, y: x + mpf(2.5) * w / y),
    "clamp_inplace": ([X], {"min": -1.0, "max": 2.0}, lambda x: min(max(x, mpf(-1)), mpf(2))),
}


def _run(op: str, inputs: list, attrs: dict) -> tuple[torch.Tensor, list[torch.Tensor]]:
    tensors = [torch.tensor(v, dtype=torch.float64) for v in inputs]
    before = [t.clone() for t in tensors]
    graph = Graph(tuple(TensorSpec(tuple(t.shape), "fp32") for t in tensors), (Node.make(op, list(range(len(tensors))), **attrs),), (len(tensors),))
    (out,) = compile_source(lower(graph, reference=True))(*tensors)
    assert all(torch.equal(t, b) for t, b in zip(tensors, before)), "an input was written"
    return out, tensors


@pytest.mark.parametrize("op", sorted(CASES))
def test_the_reference_is_the_op_at_100_bits(op):
    inputs, attrs, formula = CASES[op]
    out, tensors = _run(op, inputs, attrs)
    assert out.shape == tensors[0].shape
    full = [np.broadcast_to(np.asarray(v, dtype=float), out.shape) for v in inputs]
    want = [formula(*(mpf(float(a[idx])) for a in full)) for idx in np.ndindex(*out.shape)]
    assert_exact(out, want)


def test_a_write_through_a_transposed_view_lands_in_the_base():
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]  # (2, 3); its transpose (3, 2) times a column (3, 1) scales the base's columns
    out, _ = _run("mul_inplace_view", [x, [[10.0], [100.0], [-1.0]]], {"dim0": 0, "dim1": -1})
    assert out.tolist() == [[10.0, 200.0, -3.0], [40.0, 500.0, -6.0]]


@pytest.mark.parametrize("size, step, want", [(1, 2, [1, -2, 3, -4, 5, -6]), (3, 2, [1, 2, 3, 4, 5, -6]), (2, 3, [1, 2, -3, 4, 5, -6])])
def test_abs_through_unfold_windows_lands_on_the_elements_a_window_covers(size, step, want):
    """abs_inplace_windows: every element some window covers, once or twice (overlap), is made positive; the rest are kept."""
    graph = Graph((TensorSpec((1, 6), "fp32"),), (Node.make("abs_inplace_windows", [0], dim=1, size=size, step=step),), (1,))
    x = torch.tensor([[-1.0, -2, -3, -4, -5, -6]])
    for reference in (False, True):
        fn = compile_source(lower(graph, reference=reference))
        (got,) = fn(x.double() if reference else x)
        assert got.tolist() == [want] and x[0, 0] == -1.0  # the input is left as it was
