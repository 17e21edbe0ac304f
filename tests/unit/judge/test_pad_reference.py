"""F.pad's float64 reference against each mode's values written out by hand: a copy, so exact; and eager's constant in
bf16 is the value rounded once (within half an ULP of the reference's)."""

import pytest
import torch

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("pad",)

ROW = [1.5, -2.25, 3.0]  # one row; padded (2, 1) along it


def _padded(x: list, pad: tuple, mode: str, value=None, dtype: str = "fp32", reference: bool = True) -> torch.Tensor:
    t = torch.tensor(x, dtype=torch.float64)
    graph = Graph((TensorSpec(tuple(t.shape), dtype),), (Node.make("pad", [0], pad=pad, mode=mode, value=value),), (1,))
    (out,) = compile_source(lower(graph, reference=reference))(t if reference else t.to(getattr(torch, {"fp32": "float32", "bf16": "bfloat16"}[dtype])))
    return out


@pytest.mark.parametrize(
    "mode, value, want",
    [
        ("constant", 0.75, [0.75, 0.75, 1.5, -2.25, 3.0, 0.75]),
        ("reflect", None, [3.0, -2.25, 1.5, -2.25, 3.0, -2.25]),
        ("replicate", None, [1.5, 1.5, 1.5, -2.25, 3.0, 3.0]),
        ("circular", None, [-2.25, 3.0, 1.5, -2.25, 3.0, 1.5]),
    ],
)
def test_each_mode_copies_the_hand_values(mode, value, want):
    got = _padded([ROW, ROW[::-1]], (2, 1), mode, value)
    assert got.dtype == torch.float64
    assert got[0].tolist() == want
    assert got[1].tolist() == _padded([ROW[::-1]], (2, 1), mode, value)[0].tolist()


def test_two_dims_and_a_crop():
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert _padded([x], (1, 0, 0, 1), "replicate")[0].tolist() == [[1.0, 1.0, 2.0, 3.0], [4.0, 4.0, 5.0, 6.0], [4.0, 4.0, 5.0, 6.0]]
    assert _padded([x], (1, 0, 1, 0), "reflect")[0].tolist() == [[5.0, 4.0, 5.0, 6.0], [2.0, 1.0, 2.0, 3.0], [5.0, 4.0, 5.0, 6.0]]
    assert _padded(x, (-1, 1), "constant", -3.0).tolist() == [[2.0, 3.0, -3.0], [5.0, 6.0, -3.0]]


def test_a_bf16_constant_is_rounded_once_within_half_an_ulp():
    value = 0.1  # not a bf16 number: eager fills with its nearest bf16
    eager = _padded([ROW], (1, 0), "constant", value, dtype="bf16", reference=False)
    ref = _padded([ROW], (1, 0), "constant", value, dtype="bf16")
    assert ref[0, 0].item() == value and eager[0, 0].item() == torch.tensor(value).to(torch.bfloat16).item()
    assert abs(eager[0, 0].double().item() - value) <= 2.0**-8 * 2.0**-4 / 2  # half a bf16 ULP at 0.1 (exponent -4)
