"""F.pad in its four modes: constant (with a value, a negative pad crops), reflect, replicate and circular.

`pad` lists (left, right) pairs from the last dim backwards, as F.pad takes it. Every mode copies values,
so the float64 reference is exact; only the constant's value is rounded to the dtype, once.
"""

from __future__ import annotations

import random

from numfuzz.program.autocast import FP32
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, one_term, scalar

MODES = ("constant", "reflect", "replicate", "circular")
MAX_PAD = 3


def _padded_dims(rank: int, mode: str) -> list[int]:
    """How many trailing dims a mode may pad at this rank: constant any up to the rank; the others 1 to 3 dims of a
    batched or unbatched input (torch: rank = padded dims + 1 or + 2)."""
    if mode == "constant":
        return list(range(1, rank + 1))
    return [k for k in (1, 2, 3) if rank - k in (1, 2)]


def _legal(mode: str, pad: int, size: int) -> bool:
    if mode == "constant":
        return pad >= -1
    if mode == "reflect":  # reflection never repeats the edge: less than the dim
        return 0 <= pad < size
    if mode == "circular":  # wraps around at most once
        return 0 <= pad <= size
    return pad >= 0


def _pad(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape, pad, mode = list(specs[0].shape), tuple(attrs["pad"]), attrs["mode"]
    if mode not in MODES:
        raise GraphError(f"pad mode {mode!r} is none of {MODES}")
    if not pad or len(pad) % 2 or len(pad) // 2 not in _padded_dims(len(shape), mode):
        raise GraphError(f"pad {pad} in mode {mode} does not fit rank {len(shape)}")
    if mode != "constant" and attrs.get("value") is not None:
        raise GraphError(f"pad mode {mode} takes no value")
    for k in range(len(pad) // 2):
        dim = len(shape) - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        if not (_legal(mode, left, shape[dim]) and _legal(mode, right, shape[dim])):
            raise GraphError(f"pad ({left}, {right}) in mode {mode} does not fit size {shape[dim]}")
        shape[dim] += left + right
        if shape[dim] < 1:
            raise GraphError(f"pad ({left}, {right}) leaves dim {dim} empty")
    return TensorSpec(tuple(shape), specs[0].dtype)


def _draw_pad(rng: random.Random, specs: list[TensorSpec]) -> dict:
    shape = specs[0].shape
    modes = [m for m in MODES if _padded_dims(len(shape), m)]
    if not modes:
        raise GraphError(f"nothing pads a value of shape {shape}")
    mode = rng.choice(modes)
    pad: list[int] = []
    for k in range(rng.choice([k for k in _padded_dims(len(shape), mode) if k <= 3])):
        size = shape[len(shape) - 1 - k]
        sides = [p for p in range(-1, MAX_PAD + 1) if _legal(mode, p, size)]
        left = rng.choice(sides)
        right = rng.choice([p for p in sides if size + left + p >= 1])  # a crop of both sides keeps one element
        pad += [left, right]
    value = None
    if mode == "constant":  # zero mostly, as models pad; else the scalar recipe (made finite in the dtype)
        value = 0.0 if rng.random() < 0.5 else scalar(rng, "bound", specs[0])
    return {"pad": tuple(pad), "mode": mode, "value": value}


def _autocast(attrs: dict) -> str:
    """CPU autocast's fp32 list has reflection_pad and replication_pad (an fp16 or bf16 value comes out fp32), not
    constant_pad_nd or the circular pad."""
    return FP32 if attrs.get("mode") in ("reflect", "replicate") else ""


SPECS: list[OpSpec] = [
    OpSpec(
        "pad",
        1,
        "window",
        _pad,
        draw_attrs=_draw_pad,
        scalars=(("value", "bound"),),
        terms=one_term,
        bound="correctly_rounded",
        autocast_by_attrs=_autocast,
        call="F.pad({0}, {pad!r}, mode={mode!r}, value={value!r})",
    ),
]
