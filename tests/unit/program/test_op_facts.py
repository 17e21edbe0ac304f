"""The facts the judge reads from an op's entry hold for its float64 reference: a mean divides its sum by the count
(`OpSpec.divides_by_count`), softmax's form subtracts its row's max (`OpSpec.subtracts_row_max`); a reduction's
arithmetic and a swap group are one of their kinds."""

import random

import pytest
import torch

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.op_spec import COMBINES, SWAP_GROUPS, OpSpec, same
from numfuzz.program.ops import OPS, infer_node

SHAPE = (3, 5, 2)


def _reference(op: str, x: torch.Tensor, attrs: dict) -> torch.Tensor:
    graph = Graph((TensorSpec(tuple(x.shape), "fp32"),), (Node.make(op, [0], **attrs),), (1,))
    return compile_source(lower(graph, reference=True))(x)[0]


def _attrs(name: str) -> dict:
    """Attributes drawn for the op, along dim 1."""
    spec = OPS[name]
    drawn = spec.draw_attrs(random.Random(0), [TensorSpec(SHAPE, "fp32")]) if spec.draw_attrs else {}
    return {**drawn, "dim": 1, **({"dtype": "fp32"} if spec.computes_in else {})}


def test_an_op_that_divides_by_its_count_is_its_sum_over_the_count():
    x = torch.randint(-8, 9, SHAPE, generator=torch.Generator().manual_seed(0)).double()  # exact in every dtype
    flagged = [name for name, spec in OPS.items() if spec.divides_by_count]
    assert "mean" in flagged and "sum" not in flagged
    for name in flagged:
        attrs = {**_attrs(name), "keepdim": False}
        assert torch.allclose(_reference(name, x, attrs), x.sum(1) / SHAPE[1]), name
    assert not torch.allclose(_reference("sum", x, {"dim": 1, "keepdim": False}), x.sum(1) / SHAPE[1])  # the check can fail


def test_an_op_flagged_as_subtracting_its_row_max_is_the_one_unchanged_by_a_shift_of_its_rows():
    """softmax's form: exp(x - max(x)) is the same for x + c, c constant along the row; no other op along a dim that keeps
    its argument's shape (a scan) is."""
    gen = torch.Generator().manual_seed(0)
    x, shift = torch.randn(SHAPE, generator=gen, dtype=torch.float64), 30 * torch.randn(SHAPE[0], 1, SHAPE[2], generator=gen, dtype=torch.float64)
    seen = {True: 0, False: 0}
    for name, spec in OPS.items():
        attrs = _attrs(name) if spec.family == "reduce" else {}
        if spec.family != "reduce" or infer_node(Node.make(name, [0], **attrs), [TensorSpec(SHAPE, "fp32")]).shape != SHAPE:
            continue
        unchanged = torch.allclose(_reference(name, x + shift, attrs), _reference(name, x, attrs))
        assert unchanged == spec.subtracts_row_max, name
        seen[unchanged] += 1
    assert seen[True] >= 2 and seen[False] >= 3  # softmax and log_softmax; cumsum and its kin


@pytest.mark.parametrize(
    "facts, message",
    [
        ({"combines": "sum"}, "op 'mine': combines 'sum' is none of add, multiply"),
        ({"swap_group": "activations"}, "op 'mine': swap_group 'activations' is none of activation, root, "),
    ],
)
def test_a_reductions_arithmetic_or_swap_group_outside_its_kinds_is_refused_when_the_entry_is_made(facts, message):
    with pytest.raises(ValueError, match=message):
        OpSpec("mine", 1, "reduce", same, bound="table", **facts)
    assert {spec.combines for spec in OPS.values()} == {"", *COMBINES} and {spec.swap_group for spec in OPS.values()} == {"", *SWAP_GROUPS}
