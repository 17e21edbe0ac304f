"""Casts and ops that move values without computing: cat, reshape, permute, slicing and the like."""

from __future__ import annotations

import random

from numfuzz.program.dtypes import PROGRAM_DTYPES, promote
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_dim, norm_dim, one_term


def _cast(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(specs[0].shape, attrs["dtype"])


def _draw_cast(rng: random.Random, specs: list[TensorSpec]) -> dict:
    others = [d for d in PROGRAM_DTYPES if d != specs[0].dtype]
    return {"dtype": rng.choice(others)}


def _cat(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) != len(b) or not a:
        raise GraphError("cat needs tensors of one rank >= 1")
    dim = norm_dim(attrs["dim"], len(a))
    if any(x != y for i, (x, y) in enumerate(zip(a, b)) if i != dim):
        raise GraphError(f"cat shapes {a} and {b} differ off dim {dim}")
    shape = list(a)
    shape[dim] = a[dim] + b[dim]
    return TensorSpec(tuple(shape), promote(specs[0].dtype, specs[1].dtype))


def _reshape(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = tuple(attrs["shape"])
    n = 1
    for d in shape:
        n *= d
    if n != specs[0].numel:
        raise GraphError(f"reshape {specs[0].shape} to {shape} changes numel")
    return TensorSpec(shape, specs[0].dtype)


def _permute(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    perm = tuple(attrs["perm"])
    if sorted(perm) != list(range(len(specs[0].shape))):
        raise GraphError(f"bad permutation {perm}")
    return TensorSpec(tuple(specs[0].shape[p] for p in perm), specs[0].dtype)


def _transpose(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    a, b = norm_dim(attrs["dim0"], len(shape)), norm_dim(attrs["dim1"], len(shape))
    shape[a], shape[b] = shape[b], shape[a]
    return TensorSpec(tuple(shape), specs[0].dtype)


def _unsqueeze(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = attrs["dim"]
    if not 0 <= dim <= len(shape):
        raise GraphError(f"unsqueeze dim {dim} out of range")
    shape.insert(dim, 1)
    return TensorSpec(tuple(shape), specs[0].dtype)


def _expand(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = tuple(attrs["shape"])
    if len(shape) != len(specs[0].shape) or any(s != t and s != 1 for s, t in zip(specs[0].shape, shape)):
        raise GraphError(f"cannot expand {specs[0].shape} to {shape}")
    return TensorSpec(shape, specs[0].dtype)


def _slice(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = attrs["dim"]
    if not 0 <= dim < len(shape):
        raise GraphError(f"slice dim {dim} must be in [0, {len(shape)})")
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if not (0 <= start < stop <= shape[dim] and step >= 1):
        raise GraphError(f"bad slice {start}:{stop}:{step} of size {shape[dim]}")
    shape[dim] = len(range(start, stop, step))
    return TensorSpec(tuple(shape), specs[0].dtype)


def _chunk(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = norm_dim(attrs["dim"], len(shape))
    size = -(-shape[dim] // attrs["chunks"])
    pieces = [min(size, shape[dim] - s) for s in range(0, shape[dim], size)]
    if not 0 <= attrs["index"] < len(pieces):
        raise GraphError(f"chunk index {attrs['index']} of {len(pieces)}")
    shape[dim] = pieces[attrs["index"]]
    return TensorSpec(tuple(shape), specs[0].dtype)


def _repeat(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape, repeats = specs[0].shape, tuple(attrs["repeats"])
    if len(repeats) < len(shape) or any(not isinstance(r, int) or r < 1 for r in repeats):
        raise GraphError(f"repeat {repeats} of a value of shape {shape}")
    extra = len(repeats) - len(shape)
    return TensorSpec(repeats[:extra] + tuple(d * r for d, r in zip(shape, repeats[extra:])), specs[0].dtype)


def _draw_repeats(rng: random.Random, specs: list[TensorSpec]) -> dict:
    repeats = [1] * len(specs[0].shape)
    for dim in rng.sample(range(len(repeats)), min(2, len(repeats))):
        repeats[dim] = rng.choice([1, 2, 3])
    return {"repeats": tuple([rng.choice([2, 3])] if rng.random() < 0.3 else []) + tuple(repeats)}  # a leading new dim too


SPECS: list[OpSpec] = [
    OpSpec("cast", 1, "unary", _cast, draw_attrs=_draw_cast, weight=2.0, bound="table"),
    OpSpec("cat", 2, "cat", _cat, draw_attrs=draw_dim, bound="table", call="torch.cat(({0}, {1}), dim={dim})"),
    OpSpec("reshape", 1, "reshape", _reshape, weight=0.5, bound="table", call="{0}.reshape({shape!r})", captured=("{0}.view({shape!r})",)),
    OpSpec("permute", 1, "permute", _permute, weight=0.5, bound="table", call="{0}.permute({perm!r})"),
    OpSpec("transpose", 1, "transpose", _transpose, weight=0.5, bound="table", call="{0}.transpose({dim0}, {dim1})"),
    OpSpec("unsqueeze", 1, "unsqueeze", _unsqueeze, weight=0.3, bound="table", call="{0}.unsqueeze({dim})"),
    OpSpec("expand", 1, "expand", _expand, weight=0.3, bound="table", call="{0}.expand({shape!r})"),
    OpSpec("slice", 1, "slice", _slice, weight=0.5, bound="table"),
    OpSpec("chunk", 1, "chunk", _chunk, weight=0.5, bound="table", call="torch.chunk({0}, {chunks}, dim={dim})[{index}]"),
    # copies of the value along each dim (tiling a KV head, a mask over a batch): exact
    OpSpec("repeat", 1, "window", _repeat, draw_attrs=_draw_repeats, terms=one_term, weight=0.3, bound="correctly_rounded", call="{0}.repeat({repeats!r})"),
]
