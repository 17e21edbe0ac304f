"""matmul_batched: torch.matmul's shape rule at every pair of ranks 1 to 4, and its second operands as drawn (3-d and
4-d on either side, batch dims broadcast), held to eager; the terms its bound grows with are the shared dim."""

import itertools
import random

import torch

from numfuzz.judge.rounding_error import reduced_length
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.ops import OPS, infer_node


def _rule(a: tuple, b: tuple) -> tuple | None:
    try:
        return infer_node(Node.make("matmul_batched", [0, 1]), [TensorSpec(a, "fp32"), TensorSpec(b, "fp32")]).shape
    except GraphError:
        return None


def _eager(a: tuple, b: tuple) -> tuple | None:
    try:
        return tuple(torch.matmul(torch.zeros(a), torch.zeros(b)).shape)
    except RuntimeError:
        return None


def test_the_shape_rule_is_torchs_at_every_pair_of_ranks():
    sizes = [(3,), (2, 3), (1, 3), (2, 2, 3), (3, 3), (1, 2, 3, 2), (2, 1, 3, 3)]
    agreed = refused = 0
    for a, drawn in itertools.product(sizes, repeat=2):
        for b in (drawn, drawn[::-1]):
            got = _rule(a, b)
            assert got == _eager(a, b), (a, b)
            agreed, refused = agreed + (got is not None), refused + (got is None)
    assert agreed > 20 and refused > 20


def test_drawn_operands_are_batched_and_run_in_eager():
    op, rng, ranks = OPS["matmul_batched"], random.Random(0), set()
    for _ in range(300):
        first = TensorSpec(tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 4))), "fp32")
        (second,) = op.operands(rng, first, {})
        assert max(len(first.shape), len(second)) >= 3
        assert _rule(first.shape, second) == _eager(first.shape, second) is not None
        ranks.add((len(first.shape), len(second)))
    assert {(2, 3), (2, 4), (3, 3), (4, 4), (3, 4), (4, 2), (1, 3)} <= ranks


def test_its_bound_grows_with_the_shared_dim():
    graph = Graph((TensorSpec((2, 5, 7), "fp32"), TensorSpec((1, 7, 3), "fp32")), (Node.make("matmul_batched", [0, 1]),), (2,))
    assert reduced_length(graph, 0) == 7
