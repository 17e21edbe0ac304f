"""Ops that read a float tensor at integer indices: gather, index_select, embedding.

The indices are an integer input (i64, domain "index") drawn in range; the minimiser keeps them
there (`OpSpec.index_bound`). Each output value is one of the float input's values, so the float64
reference is exact.
"""

from __future__ import annotations

import random

from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_dim, need_rank, norm_dim, one_term

FRESH_DIM = 8  # the largest new dim an index input gets


def _gather(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, index = specs[0].shape, specs[1].shape
    dim = norm_dim(attrs["dim"], len(x))
    if len(index) != len(x) or any(i > n for d, (i, n) in enumerate(zip(index, x)) if d != dim):
        raise GraphError(f"gather's index {index} does not fit {x} along dim {dim}")
    return TensorSpec(index, specs[0].dtype)


def gather_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 1)
    dim = norm_dim(attrs["dim"], len(spec.shape))
    return [tuple(rng.randint(1, FRESH_DIM) if d == dim else rng.choice([n, rng.randint(1, n)]) for d, n in enumerate(spec.shape))]


def along(spec: TensorSpec, attrs: dict) -> int:
    return spec.shape[norm_dim(attrs["dim"], len(spec.shape))]


def _index_select(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, index = specs[0].shape, specs[1].shape
    dim = norm_dim(attrs["dim"], len(x))
    if len(index) != 1:
        raise GraphError(f"index_select takes a 1-d index, got {index}")
    return TensorSpec(x[:dim] + index + x[dim + 1 :], specs[0].dtype)


def index_vector_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    """A 1-d index of up to FRESH_DIM positions (often more than a dim has: a repeated index)."""
    need_rank(spec, 1)
    return [(rng.randint(1, FRESH_DIM),)]


def _embedding(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    weight, index = specs[0].shape, specs[1].shape
    if len(weight) != 2 or len(index) > 2:
        raise GraphError(f"embedding takes a 2-d weight and an index of rank <= 2, got {weight} and {index}")
    return TensorSpec(index + weight[1:], specs[0].dtype)


def _embedding_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 2, 2)
    return [tuple(rng.randint(1, FRESH_DIM) for _ in range(rng.randint(1, 2)))]


def rows(spec: TensorSpec, attrs: dict) -> int:
    return spec.shape[0]


SPECS: list[OpSpec] = [
    # copies: exact
    OpSpec("gather", 2, "fresh", _gather, domains=("any", "index"), draw_attrs=draw_dim, operands=gather_operands, index_arg=1, index_bound=along,
           terms=one_term, bound="correctly_rounded", call="torch.gather({0}, {dim}, {1})", reference="torch.gather({0}, {dim}, {1}.long())"),
    OpSpec(
        "index_select", 2, "fresh", _index_select, domains=("any", "index"), draw_attrs=draw_dim, operands=index_vector_operands,
        index_arg=1, index_bound=along, terms=one_term, weight=0.5, bound="correctly_rounded", call="torch.index_select({0}, {dim}, {1})", reference="torch.index_select({0}, {dim}, {1}.long())"
    ),
    # the weight is the drawn value (its rows are the vocabulary), the indices a new input; more
    # weight, as it fits only a 2-d value (as addmm does)
    OpSpec("embedding", 2, "fresh", _embedding, domains=("any", "index"), operands=_embedding_operands, index_arg=1, index_bound=rows, weight=1.5,
           terms=one_term, bound="correctly_rounded", call="F.embedding({1}, {0})", reference="F.embedding({1}.long(), {0})"),
]  # fmt: skip
