"""Casts and ops that move values without computing: cat, reshape, permute, slicing and the like."""

from __future__ import annotations

import random
from typing import Any

from numfuzz.program.dtypes import PROGRAM_DTYPES, promote, torch_name
from numfuzz.program.families import Builder, register
from numfuzz.program.ir import GraphError, Node, TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_dim, norm_dim, one_term

Drawn = tuple[list[int], dict[str, Any]]


def _cast(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(specs[0].shape, attrs["dtype"])


def _draw_cast(rng: random.Random, specs: list[TensorSpec]) -> dict:
    others = [d for d in PROGRAM_DTYPES if d != specs[0].dtype]
    return {"dtype": rng.choice(others)}


# A bitcast: a value's bits read as the signed integer of its width, or as bytes (x.t().contiguous().view(torch.uint8),
# which Inductor failed to lower before torch 2.15: pytorch#185515), judged exactly. It casts to the dtype it was drawn on
# first, a no-op in eager, so that the float64 reference reads eager's bits too; bytes need a last dim of stride 1.
BITCAST_WIDTHS = {"fp16": ("i16", 2), "bf16": ("i16", 2), "fp32": ("i32", 4)}
_NAMED = {torch_name(n): n for n in ("fp16", "bf16", "fp32", "i16", "i32", "u8")}  # its attributes hold torch's names, as the call writes them


def _draw_bitcast(rng: random.Random, specs: list[TensorSpec]) -> dict:
    src = specs[0].dtype
    if src not in BITCAST_WIDTHS:
        raise GraphError(f"no bitcast of {src} drawn")
    return {"src": torch_name(src), "dst": torch_name(rng.choice([BITCAST_WIDTHS[src][0], "u8"]))}


def _bitcast(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape, (same_width, size) = specs[0].shape, BITCAST_WIDTHS[_NAMED[attrs["src"]]]
    if _NAMED[attrs["dst"]] == same_width:
        return TensorSpec(shape, same_width)
    if not shape:
        raise GraphError("a 0-d value has no last dim to read as bytes")
    return TensorSpec((*shape[:-1], shape[-1] * size), "u8")


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


# --- the families: each draws its op's arguments and the attributes a shape rule needs ------------------------------


def _draw_cat(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    """A value of the first's shape, or a new input that differs from it along the dim only."""
    shape = b.specs[first].shape
    dim = attrs["dim"] % len(shape)
    same = [i for i in b.floats() if b.specs[i].shape == shape and i != first]
    if same and b.rng.random() < 0.5:
        return [first, b.rng.choice(same)], attrs
    other = list(shape)
    other[dim] = b.draw("shapes").randint(1, b.config.max_dim)
    return [first, b.new_input(tuple(other), b.partner_dtype(b.specs[first].dtype, False))], attrs


def _draw_reshape(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    rng, n = b.draw("attrs"), b.specs[first].numel
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    a = rng.choice(divisors)
    return [first], {"shape": rng.choice([(n,), (a, n // a), (1, a, n // a)])}


def _draw_permute(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    perm = list(range(len(b.specs[first].shape)))
    b.draw("attrs").shuffle(perm)
    return [first], {"perm": tuple(perm)}


def _draw_transpose(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    rng, rank = b.draw("attrs"), len(b.specs[first].shape)
    return [first], {"dim0": rng.randrange(rank), "dim1": rng.randrange(rank) - rank}


def _draw_unsqueeze(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    return [first], {"dim": b.draw("attrs").randint(0, len(b.specs[first].shape))}


def _draw_expand(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    """Each size-1 dim expanded; a value with none first gets one (an unsqueeze)."""
    rng = b.draw("attrs")
    if 1 not in b.specs[first].shape:
        first = b.add_node(Node.make("unsqueeze", [first], dim=rng.randint(0, len(b.specs[first].shape))))
    return [first], {"shape": tuple(rng.randint(2, max(2, b.config.max_dim)) if d == 1 else d for d in b.specs[first].shape)}


def _draw_slice(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    rng, shape = b.draw("attrs"), b.specs[first].shape
    dim = rng.randrange(len(shape))
    start = rng.randrange(shape[dim])
    return [first], {"dim": dim, "start": start, "stop": rng.randint(start + 1, shape[dim]), "step": rng.choice([1, 1, 2])}


def _draw_chunk(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> Drawn:
    rng, shape = b.draw("attrs"), b.specs[first].shape
    dim = rng.randrange(len(shape))
    chunks = rng.randint(2, 3)
    size = -(-shape[dim] // chunks)
    return [first], {"dim": dim, "chunks": chunks, "index": rng.randrange(-(-shape[dim] // size))}


for _name, _draw in [
    ("cat", _draw_cat),
    ("reshape", _draw_reshape),
    ("permute", _draw_permute),
    ("transpose", _draw_transpose),
    ("unsqueeze", _draw_unsqueeze),
    ("expand", _draw_expand),
    ("slice", _draw_slice),
    ("chunk", _draw_chunk),
]:
    register(_name, _draw, terms=one_term)  # a copy or a selection: one input element each


SPECS: list[OpSpec] = [
    OpSpec("cast", 1, "unary", _cast, draw_attrs=_draw_cast, weight=2.0, bound="table"),
    OpSpec(
        "view_dtype",
        1,
        "unary",
        _bitcast,
        draw_attrs=_draw_bitcast,
        weight=0.2,
        bound="correctly_rounded",
        call="{0}.to(torch.{src}).contiguous().view(torch.{dst})",
    ),
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
