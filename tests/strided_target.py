"""A planted layout bug: a target that reads a permuted input's memory as if the input were contiguous.

It is eager, except that an input whose strides are a permutation of contiguous ones (a transposed
or permuted view) is handed to the program as the same memory with row-major strides: its values
arrive in memory order. Contiguous, stepped and expanded inputs pass as they are, so the bug shows
only where the generator lays an input out permuted, and a plain layout makes it go away.
"""

from __future__ import annotations

from typing import Callable

import torch

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


def _row_major_strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return strides


def misread(x: torch.Tensor) -> torch.Tensor:
    """x itself, unless it is a permutation of a contiguous tensor: then its memory, read row-major."""
    if x.dim() < 2 or x.is_contiguous() or 0 in x.stride():
        return x
    order = sorted(range(x.dim()), key=lambda d: -x.stride(d))
    if not x.permute(order).is_contiguous():
        return x  # stepped: not this bug
    return torch.as_strided(x, tuple(x.shape), _row_major_strides(tuple(x.shape)), x.storage_offset())


class ContiguousReader(Eager):
    """Eager's protocol (no trace, nothing to reset, `fn` in repros), with permuted inputs misread."""

    name = "contiguous_reader"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            return fn(*[misread(a) if isinstance(a, torch.Tensor) else a for a in args])

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], "strided_target.ContiguousReader().prepare(fn, DEVICE)"  # the script imports this module


register("contiguous_reader", lambda arg: ContiguousReader(), "eager, reading permuted inputs as if contiguous (tests only)")
