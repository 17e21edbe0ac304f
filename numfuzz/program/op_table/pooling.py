"""Windows over the two spatial dims of (N, C, H, W) or (C, H, W): max pooling (and its indices), average and adaptive
average pooling, and interpolation (nearest, bilinear, bicubic) of (N, C, H, W) or (nearest, trilinear) of
(N, C, D, H, W); adaptive average pooling along the last dim of (N, C, L) or (C, L).

Sizes are drawn as ints; a captured module passes them as pairs (`nn.MaxPool2d((2, 3))`, `nn.Upsample(size=(4, 6))`),
and `stride=None` means the kernel's: the shape rules take each form.
"""

from __future__ import annotations

import math
import random
from typing import Any

from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, need_rank, one_term

MODES = ("nearest", "bilinear", "bicubic")
MODES_3D = ("nearest", "trilinear")  # of (N, C, D, H, W): a video's or a volume's upsampling


def _along(attrs: dict, name: str, axis: int, default: Any = None) -> int:
    """An attribute along one spatial axis (0: H, 1: W; or 0: D, 1: H, 2: W): an int, a pair or a triple; None (or `()`)
    gives `default`."""
    value = attrs[name]
    if value is None or value == ():
        value = default
    value = value[axis] if isinstance(value, (tuple, list)) and len(value) in (2, 3) else value
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphError(f"{name}={attrs[name]!r} is not a size")
    return value


def _pooled(size: int, kernel: int, stride: int, padding: int, ceil_mode: bool) -> int:
    """torch's pooling output size (pooling_output_shape): with ceil_mode, a last window must start inside the input or its left padding."""
    span = size + 2 * padding - kernel + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _pool(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    need_rank(specs[0], 3, 4)
    shape = specs[0].shape
    out = []
    for axis in (0, 1):
        kernel = _along(attrs, "kernel_size", axis)
        stride = _along(attrs, "stride", axis, default=attrs["kernel_size"])
        padding = _along(attrs, "padding", axis)
        if kernel < 1 or stride < 1 or not 0 <= padding <= kernel // 2:
            raise GraphError(f"pooling kernel {kernel}, stride {stride}, padding {padding}: torch refuses (padding at most half the kernel)")
        size = _pooled(shape[axis - 2], kernel, stride, padding, bool(attrs["ceil_mode"]))
        if size < 1:
            raise GraphError(f"pooling kernel {kernel} does not fit {shape[-2:]} padded by {padding}")
        out.append(size)
    return TensorSpec(shape[:-2] + tuple(out), specs[0].dtype)


def _avg_pool(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if not isinstance(attrs["count_include_pad"], bool):
        raise GraphError(f"avg_pool2d count_include_pad={attrs['count_include_pad']!r} is no bool")
    return _pool(specs, attrs)


def _draw_pool(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 3, 4)
    kernel = rng.choice([2, 3])
    # the stride of nn.MaxPool2d's default (the kernel), 1 (overlapping windows) or 2; padding at most kernel // 2 (1 for both)
    return {"kernel_size": kernel, "stride": rng.choice([kernel, 1, 2]), "padding": rng.choice([0, 0, 1]), "ceil_mode": rng.random() < 0.25}


def _draw_avg_pool(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**_draw_pool(rng, specs), "count_include_pad": rng.random() < 0.5}


def _adaptive(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    need_rank(specs[0], 3, 4)
    shape, sizes = specs[0].shape, []
    for axis, size in enumerate(_pair(attrs["output_size"])):
        size = shape[axis - 2] if size is None else size  # None keeps the input's size (nn.AdaptiveAvgPool2d((None, 7)))
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise GraphError(f"adaptive_avg_pool2d output size {attrs['output_size']!r} is not a size")
        sizes.append(size)
    return TensorSpec(shape[:-2] + tuple(sizes), specs[0].dtype)


def _pair(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) and len(value) == 2 else (value, value)


def _draw_adaptive(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 3, 4)
    height, width = specs[0].shape[-2:]
    # 1 (global pooling, as a classifier's head), else any size up to the input's: windows of unequal lengths that overlap
    if rng.random() < 0.25:
        return {"output_size": (1, 1)}
    return {"output_size": (rng.randint(1, height), rng.randint(1, width))}


def _interpolate(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    # rank 3 would be a 1-d interpolation, which bilinear and bicubic refuse; rank 5 interpolates D, H and W
    need_rank(specs[0], 4, 5)
    shape, mode = specs[0].shape, attrs["mode"]
    spatial = len(shape) - 2
    size, scale = attrs["size"], attrs["scale_factor"]
    if mode not in (MODES if spatial == 2 else MODES_3D):
        raise GraphError(f"interpolate mode {mode!r} is none of {MODES if spatial == 2 else MODES_3D} for rank {len(shape)}")
    if (mode == "nearest") != (attrs["align_corners"] is None):
        raise GraphError(f"interpolate: align_corners={attrs['align_corners']!r} with mode {mode!r}")
    if (size is None) == (scale is None):
        raise GraphError("interpolate takes one of size and scale_factor")
    if size is not None:
        out = [_along(attrs, "size", axis) for axis in range(spatial)]
    else:
        factors = tuple(scale) if isinstance(scale, (tuple, list)) else (scale,) * spatial
        if len(factors) != spatial or any(isinstance(f, bool) or not isinstance(f, (int, float)) or not f > 0 for f in factors):
            raise GraphError(f"interpolate scale_factor={scale!r} is not {spatial} positive numbers")
        out = [math.floor(n * float(f)) for n, f in zip(shape[2:], factors)]
    if min(out) < 1:
        raise GraphError(f"interpolate of {shape[2:]} to {out} is empty")
    return TensorSpec(shape[:2] + tuple(out), specs[0].dtype)


def _draw_interpolate(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 4, 5)
    if len(specs[0].shape) == 5:
        mode = rng.choice(MODES_3D)
        align = None if mode == "nearest" else rng.random() < 0.5
        if rng.random() < 0.5:
            return {"mode": mode, "align_corners": align, "size": None, "scale_factor": rng.choice([2.0, 1.5, (1.0, 2.0, 2.0)])}
        return {"mode": mode, "align_corners": align, "size": tuple(rng.randint(1, 2 * n + 1) for n in specs[0].shape[2:]), "scale_factor": None}
    height, width = specs[0].shape[-2:]
    mode = rng.choices(MODES, (0.4, 0.45, 0.15))[0]
    align = None if mode == "nearest" else rng.random() < 0.5
    if rng.random() < 0.5:  # by a factor: 2, as a decoder's, or one that is no integer (read as 1 / factor, not in / out)
        return {"mode": mode, "align_corners": align, "size": None, "scale_factor": rng.choice([2.0, 2.0, 1.5, (1.5, 1.25), 0.5])}
    # an explicit size, up or down, along each axis: a ratio that is no integer
    size = (rng.randint(1, 2 * height + 1), rng.randint(1, 2 * width + 1))
    return {"mode": mode, "align_corners": align, "size": size, "scale_factor": None}


def _adaptive_1d(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    need_rank(specs[0], 2, 3)
    size = attrs["output_size"]
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise GraphError(f"adaptive_avg_pool1d output size {size!r} is not a size")
    return TensorSpec(specs[0].shape[:-1] + (size,), specs[0].dtype)


def _draw_adaptive_1d(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 2, 3)
    return {"output_size": rng.randint(1, max(1, specs[0].shape[-1]))}


def _window_terms(specs: list[TensorSpec], attrs: dict) -> int:
    """An average pool's terms per output element: its kernel's area."""
    return _along(attrs, "kernel_size", 0) * _along(attrs, "kernel_size", 1)


def _adaptive_window(size: int, out: int) -> int:
    """The longest of adaptive pooling's windows along a dim (torch's start floor(i * size / out), end ceil((i + 1) * size / out))."""
    return max(-(-(i + 1) * size // out) - i * size // out for i in range(out))


def _adaptive_terms(specs: list[TensorSpec], attrs: dict) -> int:
    out = _adaptive(specs, attrs).shape[-2:]
    return _adaptive_window(specs[0].shape[-2], out[0]) * _adaptive_window(specs[0].shape[-1], out[1])


def _adaptive_1d_terms(specs: list[TensorSpec], attrs: dict) -> int:
    return _adaptive_window(specs[0].shape[-1], attrs["output_size"])


# The input elements one output element of interpolation weighs, per spatial axis: nearest copies one; linear modes
# weigh the two neighbours, bicubic four
TAPS = {"nearest": 1, "bilinear": 2, "trilinear": 2, "bicubic": 4}


def _interpolation_terms(specs: list[TensorSpec], attrs: dict) -> int:
    return TAPS[attrs["mode"]] ** (len(specs[0].shape) - 2)


SPECS: list[OpSpec] = [
    # a selection: the max of the window (padding never wins), so exact
    OpSpec(
        "max_pool2d",
        1,
        "window",
        _pool,
        draw_attrs=_draw_pool,
        terms=one_term,
        weight=0.5,
        bound="correctly_rounded",
        call="F.max_pool2d({0}, {kernel_size}, {stride}, {padding}, ceil_mode={ceil_mode})",
    ),
    OpSpec(
        "avg_pool2d",
        1,
        "window",
        _avg_pool,
        draw_attrs=_draw_avg_pool,
        terms=_window_terms,
        weight=0.5,
        bound="undocumented",
        call="F.avg_pool2d({0}, {kernel_size}, {stride}, {padding}, ceil_mode={ceil_mode}, count_include_pad={count_include_pad})",
    ),
    OpSpec(
        "adaptive_avg_pool2d",
        1,
        "window",
        _adaptive,
        draw_attrs=_draw_adaptive,
        terms=_adaptive_terms,
        weight=0.5,
        bound="undocumented",
        call="F.adaptive_avg_pool2d({0}, {output_size!r})",
    ),
    OpSpec(
        "interpolate",
        1,
        "window",
        _interpolate,
        draw_attrs=_draw_interpolate,
        terms=_interpolation_terms,
        weight=0.5,
        bound="undocumented",
        call="F.interpolate({0}, size={size!r}, scale_factor={scale_factor!r}, mode={mode!r}, align_corners={align_corners!r})",
    ),
    OpSpec(
        "adaptive_avg_pool1d",
        1,
        "window",
        _adaptive_1d,
        draw_attrs=_draw_adaptive_1d,
        terms=_adaptive_1d_terms,
        weight=0.5,
        bound="undocumented",
        call="F.adaptive_avg_pool1d({0}, {output_size})",
    ),
    # with return_indices, judged through what the indices select: the input's element at each (a flat index into its
    # H x W, padding never chosen), which is the window's maximum (pytorch#197434: the indices of a transposed input)
    OpSpec(
        "max_pool2d_indices",
        1,
        "window",
        _pool,
        draw_attrs=_draw_pool,
        terms=one_term,
        weight=0.5,
        bound="correctly_rounded",
        call="(lambda x, r: x.flatten(-2).gather(-1, r[1].flatten(-2)).view_as(r[0]))"
        "({0}, F.max_pool2d({0}, {kernel_size}, {stride}, {padding}, ceil_mode={ceil_mode}, return_indices=True))",
        reference="F.max_pool2d({0}, {kernel_size}, {stride}, {padding}, ceil_mode={ceil_mode})",
    ),
]
