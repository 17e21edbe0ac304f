"""A planted layout bug: a target that reads an input at a storage offset as if it started at the base of its memory.

It is eager, except that an input with a storage offset (a view into a larger tensor: `base[i]`, `base[:, j]`, an
`as_strided` at an offset) is handed to the program as the same strides over the same memory from its first element,
as a kernel that indexed from the storage's start would read it. What it reads there is memory the view skips (NaN,
as numfuzz lays views out) or other elements, so the bug shows only where an input sits at an offset, and a plain
layout makes it go away. `offset_dropper_control` is the same wrapping with the bug off.
"""

from __future__ import annotations

from typing import Callable

import torch

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


def from_the_base(x: torch.Tensor) -> torch.Tensor:
    """x's shape and strides over its memory from the first element: its storage offset dropped."""
    if not isinstance(x, torch.Tensor) or x.storage_offset() == 0:
        return x
    return torch.as_strided(x, tuple(x.shape), x.stride(), 0)


class OffsetDropper(Eager):
    """Eager's protocol (no trace, nothing to reset, `fn` in repros), with inputs at an offset read from their base where `planted`."""

    def __init__(self, planted: bool):
        self.planted = planted
        self.name = "offset_dropper" if planted else "offset_dropper_control"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            return fn(*[from_the_base(a) for a in args]) if self.planted else fn(*args)

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"offset_bug_target.OffsetDropper({self.planted}).prepare(fn, DEVICE)"  # the script imports this module


register("offset_dropper", lambda arg: OffsetDropper(True), "eager, reading inputs at a storage offset from their base (tests only)")
register("offset_dropper_control", lambda arg: OffsetDropper(False), "eager, wrapped as offset_dropper is, the bug off (tests only)")
