"""The metamorphic check beside the float64 oracle: the same values at two positions must give the same result.

A sample whose inputs repeat their first positions at the end of a dim (a row, or a row's head
in its tail: `numfuzz.program.seams.mirror`) puts the same values on both sides of a seam, such
as a vector loop's body and its scalar tail. Where the float64 reference and eager each give
equal results at the two positions, the compiled program must as well, under the same compile.
A difference beyond what fp32 kernel libraries document (KERNEL_BOUND_ULP at the output's
scale), or finite against non-finite, is a `position_dependent` finding.

Nothing is stored to say which samples repeat values: the check finds the repetition in the
inputs themselves, so a case replays, and is minimised, with the same check.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from numfuzz.judge.oracle import KERNEL_BOUND_ULP, ulp
from numfuzz.program.dtypes import check_dtype, is_integer


def repeated_block(arrays: list[np.ndarray], axis: int) -> tuple[int, int] | None:
    """(extent, block) when every input spanning the right-aligned `axis` at its longest extent repeats its first `block` positions at its end."""
    spanning = [a for a in arrays if a.ndim >= -axis and a.shape[axis] > 1]
    if not spanning:
        return None
    size = max(a.shape[axis] for a in spanning)
    full = [np.moveaxis(a, axis, 0) for a in spanning if a.shape[axis] == size]
    # a block can repeat only where its first slice does: test those starts alone (a long row is not quadratic)
    starts = np.ones(size, dtype=bool)
    for a in full:
        starts &= (a == a[:1]).reshape(size, -1).all(axis=1)
    for start in np.flatnonzero(starts[size - size // 2 :]) + (size - size // 2):
        block = size - int(start)
        if all(np.array_equal(a[:block], a[size - block :]) for a in full):
            return size, block
    return None


def ends_along(x: np.ndarray, axis: int, size: int, block: int) -> tuple[np.ndarray, np.ndarray] | None:
    if x.ndim < -axis or x.shape[axis] != size:
        return None
    moved = np.moveaxis(x, axis, 0)
    return moved[:block], moved[size - block :]


def same_values(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a == b) | (np.isnan(a) & np.isnan(b))


def position_dependence(
    samples: list[list[torch.Tensor]], eager: list[tuple], reference: list[tuple], target: list[tuple], out_dtypes: list[str]
) -> str | None:
    """A one-line description of the first position-dependent result, or None."""
    for i, sample in enumerate(samples):
        arrays = [x.detach().to("cpu", torch.float64).numpy() for x in sample]
        rank = max((a.ndim for a in arrays), default=0)
        for axis in sorted({-1, -rank}) if rank else ():
            found = repeated_block(arrays, axis)
            if found is None:
                continue
            size, block = found
            for k, dtype in enumerate(out_dtypes):
                if is_integer(dtype):  # judged exactly against eager already: equal, or no position check runs
                    continue
                sides = [ends_along(run[i][k].detach().to("cpu", torch.float64).numpy(), axis, size, block) for run in (reference, eager, target)]
                if any(side is None for side in sides):
                    continue
                (r0, r1), (e0, e1), (t0, t1) = sides
                witnessed = (r0 == r1) & np.isfinite(r0) & same_values(e0, e1)
                differ = witnessed & ~same_values(t0, t1)
                if not differ.any():
                    continue
                fmt = check_dtype(dtype)
                largest = float(np.abs(reference[i][k].detach().to("cpu", torch.float64).numpy()).max())
                unit = ulp(np.maximum(np.abs(r0), math.ldexp(largest, -(fmt.mantissa_bits + 1))), fmt)  # at the output's scale
                if bool((np.isfinite(t0) != np.isfinite(t1))[differ].any()):
                    return f"output {k}, sample {i}: the same values at positions 0..{block - 1} and {size - block}..{size - 1} of dim {axis} give finite and non-finite results"
                gap = float((np.abs(t0 - t1) / unit)[differ].max())
                if gap > KERNEL_BOUND_ULP:
                    return (
                        f"output {k}, sample {i}: the same values at positions 0..{block - 1} and {size - block}..{size - 1} of dim {axis} "
                        f"give results {gap:.3g} ULP apart (eager and float64 agree there)"
                    )
    return None
