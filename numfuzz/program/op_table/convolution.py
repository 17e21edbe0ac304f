"""Convolutions: conv2d over (N, C, H, W) or (C, H, W), with stride, padding, dilation and groups (depthwise among them)."""

from __future__ import annotations

import math
import random

from numfuzz.program.autocast import LOWER
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, need_rank

MAX_OUT_PER_GROUP = 4  # output channels a group gets, at most: a fresh weight stays small


def _along(attrs: dict, name: str, axis: int) -> int:
    """An attribute along one spatial axis: drawn as one int, captured from a module as a pair."""
    value = attrs[name]
    value = value[axis] if isinstance(value, (tuple, list)) and len(value) == 2 else value
    if isinstance(value, bool) or not isinstance(value, int):
        raise GraphError(f"conv2d {name}={attrs[name]!r} is not a size")
    return value


def _out_size(size: int, kernel: int, attrs: dict, axis: int = 0) -> int:
    padding, dilation, stride = (_along(attrs, name, axis) for name in ("padding", "dilation", "stride"))
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _conv2d(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, w = specs[0].shape, specs[1].shape
    groups = attrs["groups"]
    if len(x) not in (3, 4) or len(w) != 4 or w[1] * groups != x[-3] or w[0] % groups:
        raise GraphError(f"conv2d shapes {x} and {w} disagree (groups={groups})")
    if len(specs) == 3 and specs[2].shape != (w[0],):
        raise GraphError("conv2d bias must have shape (out_channels,)")
    height, width = _out_size(x[-2], w[2], attrs, 0), _out_size(x[-1], w[3], attrs, 1)
    if height < 1 or width < 1:
        raise GraphError(f"conv2d kernel {w[2:]} does not fit {x[-2:]}")
    return TensorSpec(x[:-3] + (w[0], height, width), specs[0].dtype)


def _draw_conv(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 3, 4)
    channels = specs[0].shape[-3]
    groups = channels if channels > 1 and rng.random() < 0.25 else 1  # depthwise, as mobile and ConvNeXt blocks are
    return {"stride": rng.choice([1, 1, 2]), "padding": rng.choice([0, 1]), "dilation": rng.choice([1, 1, 2]), "groups": groups}


def _conv_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    """The weight (out_channels, in_channels / groups, kh, kw): a kernel of 1 or 3 that fits the padded input."""
    channels, height, width = spec.shape[-3:]
    kernels = [k for k in (1, 3) if _out_size(min(height, width), k, attrs) >= 1]
    kernel = rng.choice(kernels or [1])
    groups = attrs["groups"]
    return [(groups * rng.randint(1, MAX_OUT_PER_GROUP), channels // groups, kernel, kernel)]


def _kernel_terms(specs: list[TensorSpec], attrs: dict) -> int:
    """A convolution's terms per output element: its weight's in_channels / groups x kh x kw products (the bias not counted)."""
    return math.prod(specs[1].shape[1:])


SPECS: list[OpSpec] = [
    OpSpec(
        "conv2d",
        2,
        "fresh",
        _conv2d,
        same_dtype=True,
        draw_attrs=_draw_conv,
        operands=_conv_operands,
        terms=_kernel_terms,
        optional=1,
        weight=0.5,
        bound="undocumented",
        autocast=LOWER,
        call="F.conv2d({args}, stride={stride}, padding={padding}, dilation={dilation}, groups={groups})",
        captured=("F.conv2d({0}, {1}, {2}, {stride}, {padding}, {dilation}, {groups})",),
    ),
]
