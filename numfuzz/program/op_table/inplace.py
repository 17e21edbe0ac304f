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
from numfuzz.program.op_spec import OpSpec, broadcast_shapes, broadcastable_to, draw_scalar, draw_scalars, lines_at, need_rank, norm_dim, one_term
from numfuzz.program.op_table.unary import draw_clamp


def _in_place(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """x op= y (and x.addcmul_(y, z)): every operand broadcasts to x's shape, and the result is x's shape and dtype."""
    for other in specs[1:]:
        if broadcast_shapes(specs[0].shape, other.shape) != specs[0].shape:
            raise GraphError(f"an in-place op's operand {other.shape} does not broadcast to {specs[0].shape}")
    return specs[0]


def _transposed(spec: TensorSpec, attrs: dict) -> tuple[int, ...]:
    shape = list(spec.shape)
    a, b = norm_dim(attrs["dim0"], len(shape)), norm_dim(attrs["dim1"], len(shape))
    shape[a], shape[b] = shape[b], shape[a]
    return tuple(shape)


def _written_transposed(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """A write through x's transposed view: the operand broadcasts to the view's shape; x is read on."""
    view = _transposed(specs[0], attrs)
    if broadcast_shapes(view, specs[1].shape) != view:
        raise GraphError(f"the operand {specs[1].shape} does not broadcast to the transposed view {view}")
    return specs[0]


def _draw_transpose(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 2)
    rank = len(specs[0].shape)
    a, b = rng.sample(range(rank), 2)
    return {"dim0": a, "dim1": b - rank}


def _transposed_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    """The view's shape, or it with some dims 1 (broadcast along them)."""
    view = _transposed(spec, attrs)
    return [broadcastable_to(rng, view)]


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


def _draw_windows(rng: random.Random, specs: list[TensorSpec]) -> dict:
    """Windows along a dim, as unfold draws them: overlapping (a step shorter than the window) or with gaps between."""
    dims = [d for d, n in enumerate(specs[0].shape) if n >= 2]
    if not dims:
        raise GraphError("no dim of 2 or more to draw windows along")
    dim = rng.choice(dims)
    size = rng.randint(1, specs[0].shape[dim] - 1)
    return {"dim": dim, "size": size, "step": rng.randint(1, size + 2)}


def _windows(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape, dim, size, step = specs[0].shape, attrs["dim"], attrs["size"], attrs["step"]
    if not 0 <= dim < len(shape) or not (1 <= size <= shape[dim] and step >= 1):
        raise GraphError(f"no windows of {size} by {step} along dim {dim} of {shape}")
    return specs[0]


SPECS: list[OpSpec] = [
    OpSpec("add_inplace", 2, "elementwise", _in_place, weight=0.5, bound="correctly_rounded", call="{0}.clone().add_({1})"),
    OpSpec("mul_inplace", 2, "elementwise", _in_place, weight=0.5, bound="correctly_rounded", call="{0}.clone().mul_({1})"),
    # The in-place forms of pointwise ops, as optimiser steps and residual updates write them (an operand of another
    # dtype is rounded into the first's, as torch does in place; lerp_ insists on one dtype)
    OpSpec("sub_inplace", 2, "elementwise", _in_place, weight=0.3, bound="correctly_rounded", call="{0}.clone().sub_({1})"),
    OpSpec("div_inplace", 2, "elementwise", _in_place, domains=("any", "nonzero"), weight=0.3, bound="table", call="{0}.clone().div_({1})"),
    OpSpec(
        "mul_scalar_inplace",
        1,
        "unary",
        _in_place,
        draw_attrs=draw_scalar,
        weight=0.3,
        scalars=(("value", "any"),),
        bound="correctly_rounded",
        call="{0}.clone().mul_({value!r})",
    ),
    # a unary math op in place (sin_, tan_ of a transposed view feeding argmax: pytorch#183082, #174073)
    OpSpec("sin_inplace", 1, "unary", _in_place, weight=0.3, bound="table", call="{0}.clone().sin_()", reference="torch.sin({0})"),
    OpSpec("tan_inplace", 1, "unary", _in_place, weight=0.2, bound="undocumented", call="{0}.clone().tan_()", reference="torch.tan({0})"),
    OpSpec("lerp_inplace", 3, "elementwise", _in_place, same_dtype=True, weight=0.3, bound="table", call="{0}.clone().lerp_({1}, {2})"),
    OpSpec(
        "addcmul_inplace",
        3,
        "elementwise",
        _in_place,
        draw_attrs=draw_scalars(("value", "bound")),
        weight=0.3,
        scalars=(("value", "bound"),),
        bound="table",
        call="{0}.clone().addcmul_({1}, {2}, value={value!r})",
    ),
    OpSpec(
        "addcdiv_inplace",
        3,
        "elementwise",
        _in_place,
        domains=("any", "any", "nonzero"),
        draw_attrs=draw_scalars(("value", "bound")),
        weight=0.3,
        scalars=(("value", "bound"),),
        bound="table",
        call="{0}.clone().addcdiv_({1}, {2}, value={value!r})",
    ),
    OpSpec(
        "clamp_inplace",
        1,
        "unary",
        _in_place,
        draw_attrs=draw_clamp,
        weight=0.3,
        scalars=(("min", "bound"), ("max", "bound")),
        lines=lines_at("min", "max"),
        bound="correctly_rounded",
        call="{0}.clone().clamp_(min={min!r}, max={max!r})",
    ),
    # a write through a view: x's transpose multiplied in place, x read on (functionalization must carry it to the base)
    OpSpec(
        "mul_inplace_view",
        2,
        "fresh",
        _written_transposed,
        draw_attrs=_draw_transpose,
        operands=_transposed_operands,
        terms=one_term,
        weight=0.3,
        bound="correctly_rounded",
        call="(lambda t: (t.transpose({dim0}, {dim1}).mul_({1}), t)[1])({0}.clone())",
    ),
    # abs_ through windows of x (unfold), x read on: windows that overlap ((x + x).unfold(1, 4, 2).abs_(), pytorch#183888;
    # abs is idempotent, so a shared element has one value whatever the order) or leave gaps, which a compiled mutation
    # through the view zeroed (pytorch#198102)
    OpSpec(
        "abs_inplace_windows",
        1,
        "window",
        _windows,
        draw_attrs=_draw_windows,
        terms=one_term,
        weight=0.3,
        bound="correctly_rounded",
        call="(lambda t: (t.unfold({dim}, {size}, {step}).abs_(), t)[1])({0}.clone())",
    ),
    # a KV cache's update: new rows copied into a slice of the cache (cast to its dtype), the whole cache read on
    OpSpec(
        "slice_write",
        2,
        "fresh",
        _written_slice,
        draw_attrs=_draw_slice,
        operands=_slice_operands,
        terms=one_term,
        weight=0.5,
        bound="correctly_rounded",
        call="(lambda t: (t.narrow({dim}, {start}, {length}).copy_({1}), t)[1])({0}.clone())",
    ),
]
