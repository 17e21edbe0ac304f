"""Ops that write a fresh float tensor into part of their first argument: diagonal_scatter, select_scatter,
slice_scatter, and the accumulating index_add and scatter_add.

The copies (diagonal, select, slice) are exact; their backward sends the upstream gradient to the
written part's source and zero to what it overwrote, a mask compilers have got wrong
(pytorch#182012, #180164). index_add and scatter_add add at i64 indices drawn in range; a repeated
index sums its terms in an order torch leaves unspecified, so their bound grows with how many
terms one output element can take (`OpSpec.terms`). index_put without accumulate keeps one write of
several at a repeated index, which one unspecified: it is drawn only as `x[idx] += x[idx]` (index_put_self), whose
writes at a repeated index are equal, so that any one is eager's (pytorch#174074, #197582: compiled, a repeated
index was accumulated twice).
"""

from __future__ import annotations

import random
from typing import Callable

from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import Operands, OpSpec, draw_dim, need_rank, norm_dim, one_term
from numfuzz.program.op_table.indexing import FRESH_DIM, along, gather_operands, index_vector_operands, rows

ALPHAS = (1, 1, -1, 0.5, 3)  # index_add's scale of its source: mostly none


def _diagonal_shape(shape: tuple[int, ...], attrs: dict) -> tuple[int, ...]:
    """The shape of `torch.diagonal(x, offset, dim1, dim2)`: x's other dims, then the diagonal's length."""
    rank = len(shape)
    d1, d2 = norm_dim(attrs["dim1"], rank), norm_dim(attrs["dim2"], rank)
    offset = attrs["offset"]
    if d1 == d2:
        raise GraphError("diagonal_scatter's dims must differ")
    length = min(shape[d1], shape[d2] - offset) if offset >= 0 else min(shape[d1] + offset, shape[d2])
    if length < 1:
        raise GraphError(f"diagonal at offset {offset} of {shape} is empty")
    return tuple(n for d, n in enumerate(shape) if d not in (d1, d2)) + (length,)


def _diagonal_scatter(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, src = specs[0].shape, specs[1].shape
    if len(x) < 2 or src != _diagonal_shape(x, attrs):
        raise GraphError(f"diagonal_scatter's src {src} is not the diagonal of {x} ({attrs})")
    return specs[0]


def _draw_diagonal(rng: random.Random, specs: list[TensorSpec]) -> dict:
    shape = specs[0].shape
    need_rank(specs[0], 2)
    rank = len(shape)
    d1, d2 = rng.choice([(0, 1), (rank - 2, rank - 1), tuple(rng.sample(range(rank), 2))])
    offset = 0 if rng.random() < 0.5 else rng.randint(1 - shape[d1], shape[d2] - 1)  # any offset with a diagonal
    negative = rng.random() < 0.3  # dims as -rank.. sometimes, as users write dim1=-2, dim2=-1
    return {"offset": offset, "dim1": d1 - rank if negative else d1, "dim2": d2 - rank if negative else d2}


def _select_scatter(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, src = specs[0].shape, specs[1].shape
    dim = norm_dim(attrs["dim"], len(x))
    if not -x[dim] <= attrs["index"] < x[dim] or src != x[:dim] + x[dim + 1 :]:
        raise GraphError(f"select_scatter's src {src} does not fit {x} at index {attrs['index']} of dim {dim}")
    return specs[0]


def _draw_select(rng: random.Random, specs: list[TensorSpec]) -> dict:
    attrs = draw_dim(rng, specs)
    n = specs[0].shape[attrs["dim"]]
    return {**attrs, "index": rng.randrange(n) - (n if rng.random() < 0.3 else 0)}


def _slice_length(shape: tuple[int, ...], attrs: dict) -> int:
    n = shape[norm_dim(attrs["dim"], len(shape))]
    return len(range(n)[attrs["start"] : attrs["stop"] : attrs["step"]])


def _slice_scatter(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, src = specs[0].shape, specs[1].shape
    dim = norm_dim(attrs["dim"], len(x))
    length = _slice_length(x, attrs)
    if length < 1 or src != x[:dim] + (length,) + x[dim + 1 :]:
        raise GraphError(f"slice_scatter's src {src} does not fit {x} ({attrs})")
    return specs[0]


def _draw_slice(rng: random.Random, specs: list[TensorSpec]) -> dict:
    attrs = draw_dim(rng, specs)
    n = specs[0].shape[attrs["dim"]]
    start = rng.randrange(n)
    return {**attrs, "start": start, "stop": rng.randint(start + 1, n), "step": rng.choice([1, 1, 2])}


def _written(shape_of: Callable[[tuple[int, ...], dict], tuple[int, ...]]) -> Operands:
    """The operands of a copy: its src, shaped by `shape_of(x's shape, attrs)`."""

    def operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
        return [shape_of(spec.shape, attrs)]

    return operands


def _select_shape(shape: tuple[int, ...], attrs: dict) -> tuple[int, ...]:
    dim = norm_dim(attrs["dim"], len(shape))
    return shape[:dim] + shape[dim + 1 :]


def _slice_shape(shape: tuple[int, ...], attrs: dict) -> tuple[int, ...]:
    dim = norm_dim(attrs["dim"], len(shape))
    return shape[:dim] + (_slice_length(shape, attrs),) + shape[dim + 1 :]


def _index_add(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, index, source = specs[0].shape, specs[1].shape, specs[2].shape
    dim = norm_dim(attrs["dim"], len(x))
    if len(index) != 1 or source != x[:dim] + index + x[dim + 1 :]:
        raise GraphError(f"index_add's index {index} and source {source} do not fit {x} along dim {dim}")
    return specs[0]


def _draw_index_add(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**draw_dim(rng, specs), "alpha": rng.choice(ALPHAS)}


def _index_add_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 1)
    length = rng.randint(1, FRESH_DIM)
    dim = norm_dim(attrs["dim"], len(spec.shape))
    return [(length,), spec.shape[:dim] + (length,) + spec.shape[dim + 1 :]]


def _index_add_terms(specs: list[TensorSpec], attrs: dict) -> int:
    return 1 + specs[1].shape[0]  # x's element, then every index may name it


def _index_put_self(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if len(specs[1].shape) != 1 or not specs[0].shape:
        raise GraphError(f"index_put_self takes a 1-d index into dim 0, got {specs[1].shape} for {specs[0].shape}")
    return specs[0]


def _draw_computed_index(rng: random.Random, specs: list[TensorSpec]) -> dict:
    """An index the program computes, arange(length) % modulus: repeated wherever length passes the modulus."""
    need_rank(specs[0], 1)
    rows = specs[0].shape[0]
    if not rows:
        raise GraphError("no row of an empty dim to index")
    return {"length": rng.randint(1, 2 * rows), "modulus": rng.randint(1, rows)}


def _index_put_computed(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if not specs[0].shape or not 1 <= attrs["modulus"] <= specs[0].shape[0] or attrs["length"] < 1:
        raise GraphError(f"arange({attrs['length']}) % {attrs['modulus']} does not index dim 0 of {specs[0].shape}")
    return specs[0]


def _scatter_add(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, index, src = specs[0].shape, specs[1].shape, specs[2].shape
    dim = norm_dim(attrs["dim"], len(x))
    fits = len(index) == len(x) == len(src) and all(i <= s and (d == dim or i <= n) for d, (i, s, n) in enumerate(zip(index, src, x)))
    if not fits:
        raise GraphError(f"scatter_add's index {index} and src {src} do not fit {x} along dim {dim}")
    return specs[0]


def _scatter_add_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    (index,) = gather_operands(rng, spec, attrs)
    return [index, index]  # src shaped as its index: every src element is added


def _scatter_add_terms(specs: list[TensorSpec], attrs: dict) -> int:
    return 1 + specs[1].shape[norm_dim(attrs["dim"], len(specs[1].shape))]  # x's element, and each index along dim


SPECS: list[OpSpec] = [
    # copies: exact, forward and backward
    OpSpec("diagonal_scatter", 2, "fresh", _diagonal_scatter, draw_attrs=_draw_diagonal, operands=_written(_diagonal_shape), same_dtype=True, weight=0.5,
           terms=one_term, bound="correctly_rounded", call="torch.diagonal_scatter({0}, {1}, {offset}, {dim1}, {dim2})"),
    OpSpec("select_scatter", 2, "fresh", _select_scatter, draw_attrs=_draw_select, operands=_written(_select_shape), same_dtype=True, weight=0.5,
           terms=one_term, bound="correctly_rounded", call="torch.select_scatter({0}, {1}, {dim}, {index})"),
    OpSpec("slice_scatter", 2, "fresh", _slice_scatter, draw_attrs=_draw_slice, operands=_written(_slice_shape), same_dtype=True, weight=0.5,
           terms=one_term, bound="correctly_rounded", call="torch.slice_scatter({0}, {1}, {dim}, {start}, {stop}, {step})"),
    # sums at indices: a repeated index adds its terms in an unspecified order (the table's bound grows with `terms`)
    OpSpec("index_add", 3, "fresh", _index_add, domains=("any", "index"), draw_attrs=_draw_index_add, operands=_index_add_operands, same_dtype=True,
           index_arg=1, index_bound=along, terms=_index_add_terms, weight=0.5, bound="table",
           call="torch.index_add({0}, {dim}, {1}, {2}, alpha={alpha})", reference="torch.index_add({0}, {dim}, {1}.long(), {2}, alpha={alpha})"),
    # x[idx] += x[idx]: a write of a doubled value, exact; equal writes at a repeated index
    OpSpec("index_put_self", 2, "fresh", _index_put_self, domains=("any", "index"), operands=index_vector_operands, index_arg=1, index_bound=rows,
           terms=one_term, weight=0.3, bound="correctly_rounded", call="torch.index_put({0}, ({1},), {0}[{1}] + {0}[{1}])",
           reference="torch.index_put({0}, ({1}.long(),), {0}[{1}.long()] + {0}[{1}.long()])"),
    # ... at a computed index (v[arange(4) % 2] = v[...] + 1, pytorch#197582): the compiler sees how the index is made
    OpSpec("index_put_self_computed", 1, "window", _index_put_computed, draw_attrs=_draw_computed_index, terms=one_term, weight=0.2,
           bound="correctly_rounded",
           call="(lambda t, i: torch.index_put(t, (i,), t[i] + t[i]))({0}, torch.arange({length}, device={0}.device) % {modulus})"),
    OpSpec("scatter_add", 3, "fresh", _scatter_add, domains=("any", "index"), draw_attrs=draw_dim, operands=_scatter_add_operands, same_dtype=True,
           index_arg=1, index_bound=along, terms=_scatter_add_terms, weight=0.5, bound="table",
           call="torch.scatter_add({0}, {dim}, {1}, {2})", reference="torch.scatter_add({0}, {dim}, {1}.long(), {2})"),
]  # fmt: skip
