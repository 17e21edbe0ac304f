"""In-place ops and views written through, as KV caches and optimiser steps write them: functionalization's ground.

Each clones its first argument and writes into the clone (never into a value another op reads), so a
program stays a function of its inputs: `x.clone().add_(y)`, and a slice of the clone overwritten
with `copy_` and the whole clone returned. torch.compile must turn each into a pure program
(functionalization, reinplacing); a write through a view that a compiler drops or misplaces
is a silent wrong result. The result keeps the first argument's dtype, as an in-place op does.
"""

from __future__ import annotations

import random

from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, broadcast_shapes, need_rank


def _in_place(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """x op= y: y broadcasts to x's shape, and the result is x's shape and dtype."""
    if broadcast_shapes(specs[0].shape, specs[1].shape) != specs[0].shape:
        raise GraphError(f"an in-place op's operand {specs[1].shape} does not broadcast to {specs[0].shape}")
    return specs[0]


def _draw_slice(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 1)
    dims = [d for d, n in enumerate(specs[0].shape) if n]
    if not dims:
        raise GraphError("no slice of an empty value to write")
    dim = rng.choice(dims)
    size = specs[0].shape[dim]
    length = rng.randint(1, size)
    return {"dim": dim, "start": rng.randint(0, size - length), "length": length}


def _slice_shape(spec: TensorSpec, attrs: dict) -> tuple[int, ...]:
    shape = list(spec.shape)
    dim, start, length = attrs["dim"], attrs["start"], attrs["length"]
    if not 0 <= dim < len(shape) or length < 1 or start < 0 or start + length > shape[dim]:
        raise GraphError(f"slice {start}:{start + length} of dim {dim} does not fit {spec.shape}")
    shape[dim] = length
    return tuple(shape)


def _written_slice(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if specs[1].shape != _slice_shape(specs[0], attrs):
        raise GraphError(f"the values written, {specs[1].shape}, are not the slice's shape {_slice_shape(specs[0], attrs)}")
    return specs[0]


def _slice_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    return [_slice_shape(spec, attrs)]


SPECS: list[OpSpec] = [
    OpSpec("add_inplace", 2, "elementwise", _in_place, weight=0.5, bound="correctly_rounded", call="{0}.clone().add_({1})"),
    OpSpec("mul_inplace", 2, "elementwise", _in_place, weight=0.5, bound="correctly_rounded", call="{0}.clone().mul_({1})"),
    # a KV cache's update: new rows copied into a slice of the cache (cast to its dtype), the whole cache read on
    OpSpec(
        "slice_write",
        2,
        "fresh",
        _written_slice,
        draw_attrs=_draw_slice,
        operands=_slice_operands,
        weight=0.5,
        bound="correctly_rounded",
        call="(lambda t: (t.narrow({dim}, {start}, {length}).copy_({1}), t)[1])({0}.clone())",
    ),
]
