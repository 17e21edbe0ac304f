"""Sampling grids: `F.affine_grid`, as a spatial transformer builds the grid it samples (theta (N, 2, 3) for an
(N, C, H, W) image, (N, 3, 4) for (N, C, D, H, W)).

The image is an argument for its shape only, as a `*_like` constant's (a value of rank 2 or 3 stands for one image of
its last two dims, (1, 1, H, W)); theta is a fresh input. Each grid point is
a base grid's point (-1 to 1, or the pixel centres without align_corners) times theta: three or four products summed.
"""

from __future__ import annotations

import random

from numfuzz.program.autocast import LOWER
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, need_rank


def _image(spec: TensorSpec) -> tuple[int, ...]:
    """The size the grid is for: the value's shape, or (1, 1, H, W) of its last two dims below rank 4."""
    need_rank(spec, 2, 5)
    return spec.shape if len(spec.shape) >= 4 else (1, 1, *spec.shape[-2:])


def _affine_grid(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    image, theta = _image(specs[0]), specs[1].shape
    spatial = len(image) - 2
    if theta != (image[0], spatial, spatial + 1):
        raise GraphError(f"affine_grid's theta {theta} is not ({image[0]}, {spatial}, {spatial + 1}) for a size {image}")
    if not isinstance(attrs["align_corners"], bool):
        raise GraphError(f"affine_grid align_corners={attrs['align_corners']!r} is no bool")
    if attrs["align_corners"] and 1 in image[2:]:  # torch warns: a grid of one point has no corners to align
        raise GraphError(f"affine_grid with align_corners of a size-1 grid {image[2:]}")
    return TensorSpec((image[0], *image[2:], spatial), specs[1].dtype)


def _draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
    _image(specs[0])
    return {"align_corners": rng.random() < 0.5}


def _theta(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    image = _image(spec)
    spatial = len(image) - 2
    return [(image[0], spatial, spatial + 1)]


SPECS: list[OpSpec] = [
    OpSpec(
        "affine_grid",
        2,
        "fresh",
        _affine_grid,
        draw_attrs=_draw,
        operands=_theta,
        weight=0.5,
        cpu_dtypes=("fp32", "fp64"),  # eager's CPU kernel has no fp16 or bf16 (its base grid's linspace); CUDA's has
        bound="undocumented",
        autocast=LOWER,  # its grid is a batched matmul of theta, which CPU autocast casts down (measured: fp16 out of fp32 theta)
        terms=lambda specs, attrs: len(_image(specs[0])) - 1,  # a point times theta's row: 3 products (4 in 3-d)
        call="F.affine_grid({1}, {0}.shape if {0}.dim() >= 4 else (1, 1, *{0}.shape[-2:]), align_corners={align_corners})",
    )
]
