"""Index ops are judged through what their indices select: eager's program gathers the argument at each index, and the
float64 reference is the extreme itself, so a right index gives the reference exactly and a tie never shows. Also the
float64 references of the ops the index bugs' programs need beside them: an in-place sin and tan, ldexp of int8 exponents,
affine_grid, and nearest interpolation of a 5-d input; and x[idx] += x[idx] at a repeated index."""

import mpmath
import pytest
import torch
from test_reference_values import assert_exact, f32, reference

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.layout import Layout
from numfuzz.program.lowering import compile_source, lower

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = (
    "argmax",
    "argmin",
    "max_dim",
    "max_pool2d_indices",
    "sin_inplace",
    "tan_inplace",
    "ldexp",
    "affine_grid",
    "index_put_self",
    "index_put_self_computed",
)

ROWS = [f32([0.5, -2.0, 3.25, 3.25]), f32([-1.0, -1.5, -7.0, 0.125]), f32([9.0, 1.0, 2.0, -9.5])]


def _eager(op: str, spec: TensorSpec, x: torch.Tensor, **attrs) -> torch.Tensor:
    graph = Graph((spec,), (Node.make(op, [0], **attrs),), (1,))
    (out,) = compile_source(lower(graph))(x)
    return out


@pytest.mark.parametrize("op, extreme", [("argmax", max), ("argmin", min), ("max_dim", max)])
@pytest.mark.parametrize("dim", [0, 1])
def test_an_index_op_selects_the_extreme_in_eager_and_in_the_reference(op, extreme, dim):
    columns = [list(c) for c in zip(*ROWS)]
    want = [[extreme(r)] for r in ROWS] if dim == 1 else [[extreme(c) for c in columns]]
    assert_exact(reference(op, ROWS, dim=dim), want)
    # eager on a transposed (column-major) input, as the surveyed bugs' programs take it: the same values selected
    x = torch.tensor(columns, dtype=torch.float32).t()
    got = _eager(op, TensorSpec((3, 4), "fp32"), x, dim=dim)
    assert got.tolist() == want and got.shape == ((3, 1) if dim == 1 else (1, 4))


def test_max_pool2d_indices_select_each_windows_maximum():
    image = torch.tensor([[[0.5, 7.0, -3.0, 2.0], [1.0, -1.0, 4.0, 4.0], [6.0, 0.25, -8.0, 1.5]]], dtype=torch.float32)
    attrs = dict(kernel_size=2, stride=1, padding=1, ceil_mode=False)
    want = torch.nn.functional.max_pool2d(image.double(), 2, 1, 1)
    assert torch.equal(reference("max_pool2d_indices", image.tolist(), **attrs), want)
    transposed = image.transpose(1, 2).contiguous().transpose(1, 2)  # H and W swapped in memory
    assert torch.equal(_eager("max_pool2d_indices", TensorSpec((1, 3, 4), "fp32"), transposed, **attrs).double(), want)


def test_in_place_sin_and_tan_and_ldexp_are_exact_in_the_reference():
    assert_exact(reference("sin_inplace", [f32([0.5, -3.0, 100.0])]), [mpmath.sin(mpmath.mpf(v)) for v in f32([0.5, -3.0, 100.0])])
    assert_exact(reference("tan_inplace", [f32([0.5, -3.0, 100.0])]), [mpmath.tan(mpmath.mpf(v)) for v in f32([0.5, -3.0, 100.0])])
    graph = Graph((TensorSpec((3,), "fp16"), TensorSpec((3,), "i8")), (Node.make("ldexp", [0, 1]),), (2,))
    x, e = torch.tensor([0.75, -3.5, 1e-3], dtype=torch.float16), torch.tensor([0, 3, 7], dtype=torch.int8)
    (out,) = compile_source(lower(graph, reference=True))(x.double(), e)
    assert out.dtype == torch.float64 and out.tolist() == [0.75, -28.0, float(x[2]) * 128]
    (eager,) = compile_source(lower(graph))(x, e)
    assert eager.dtype == torch.float16 and eager.tolist() == [0.75, -28.0, float(x[2]) * 128]


@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_is_the_base_grid_times_theta(align_corners):
    theta = [[f32([1.5, -0.25, 0.125]), f32([0.3, 2.0, -1.0])]]
    height, width = 3, 4

    def points(n: int) -> list:
        if align_corners:
            return [mpmath.mpf(-1) + 2 * mpmath.mpf(i) / (n - 1) for i in range(n)]
        return [(2 * mpmath.mpf(i) + 1) / n - 1 for i in range(n)]

    want = [[[[sum(t * p for t, p in zip(row, (x, y, 1))) for row in theta[0]] for x in points(width)] for y in points(height)]]
    graph = Graph(
        (TensorSpec((1, 2, height, width), "fp32"), TensorSpec((1, 2, 3), "fp32")), (Node.make("affine_grid", [0, 1], align_corners=align_corners),), (2,)
    )
    (got,) = compile_source(lower(graph, reference=True))(torch.zeros(1, 2, height, width, dtype=torch.float64), torch.tensor(theta, dtype=torch.float64))
    assert got.shape == (1, height, width, 2)
    assert_exact(got, want)


def test_nearest_interpolation_of_a_channels_last_5d_input():
    x = torch.arange(2 * 2 * 3 * 2, dtype=torch.float32).reshape(1, 2, 2, 3, 2)
    spec = TensorSpec((1, 2, 2, 3, 2), "fp32", Layout.make(5, perm=(0, 2, 3, 4, 1)))
    channels_last = x.contiguous(memory_format=torch.channels_last_3d)
    attrs = dict(mode="nearest", align_corners=None, size=None, scale_factor=(1.0, 2.0, 2.0))
    got = _eager("interpolate", spec, channels_last, **attrs)
    want = x.repeat_interleave(2, dim=3).repeat_interleave(2, dim=4)
    assert torch.equal(got, want) and torch.equal(reference("interpolate", x.tolist(), **attrs), want.double())


def test_index_put_self_doubles_each_indexed_row_once_however_often_its_index_repeats():
    """x[idx] += x[idx] writes 2 * x[i] at row i, once: a repeated index writes the same value again (pytorch#174074's
    compiled result added it twice). Eager and the float64 reference agree, exactly."""
    graph = Graph((TensorSpec((3, 2), "fp32"), TensorSpec((4,), "i64")), (Node.make("index_put_self", [0, 1]),), (2,))
    x, idx = torch.tensor([[0.5, -1.25], [3.0, 0.1], [7.0, -2.0]]), torch.tensor([0, 2, 0, 0])
    want = [[1.0, -2.5], [3.0, float(torch.tensor(0.1))], [14.0, -4.0]]
    (eager,) = compile_source(lower(graph))(x, idx)
    (exact,) = compile_source(lower(graph, reference=True))(x.double(), idx)
    assert eager.tolist() == want and exact.tolist() == want and exact.dtype == torch.float64


def test_index_put_self_at_a_computed_index_doubles_each_row_it_names_once():
    """index_put_self_computed: arange(5) % 2 names rows 0 and 1 (each twice, with equal writes); rows 2 on are kept."""
    graph = Graph((TensorSpec((3, 2), "fp32"),), (Node.make("index_put_self_computed", [0], length=5, modulus=2),), (1,))
    x = torch.tensor([[1.0, -2.0], [3.0, 4.5], [5.0, 6.0]])
    for in_float64 in (False, True):
        (got,) = compile_source(lower(graph, reference=in_float64))(x.double() if in_float64 else x)
        assert got.tolist() == [[2.0, -4.0], [6.0, 9.0], [5.0, 6.0]]
