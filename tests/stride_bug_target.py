"""A planted output-layout bug: a compiled program whose `sigmoid` gives the right values in column-major memory.

It is eager, run under a torch function mode that replaces what `torch.sigmoid` returns, wherever
it has at least two dims and its last two are longer than 1, by a copy laid out column-major: the
same values, the last two dims' strides swapped, as a lowering that picked the wrong output layout
would give. Eager's pointwise ops keep their input's layout, so an output computed from the sigmoid
is column-major too; the values are right everywhere, and only the metadata oracle can see it.
`stride_bug_control` is the same mode with the bug off: eager, wrapped the same way.
Like Inductor, both promise eager's output strides (`keeps_output_strides`, from eager).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


def column_major(t: torch.Tensor) -> torch.Tensor:
    """t's values with its last two dims' memory order swapped (t itself where that changes nothing)."""
    if t.dim() < 2 or t.shape[-1] < 2 or t.shape[-2] < 2:
        return t
    return t.mT.contiguous().mT


class SigmoidLayout(TorchFunctionMode):
    def __init__(self, planted: bool):
        super().__init__()
        self.planted = planted

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if self.planted and getattr(func, "__name__", "") == "sigmoid" and isinstance(result, torch.Tensor):
            return column_major(result)
        return result


class StrideBug(Eager):
    """Eager's protocol (no trace, nothing to reset), with sigmoid's results laid out column-major where `planted`."""

    def __init__(self, planted: bool):
        self.planted = planted
        self.name = "stride_bug" if planted else "stride_bug_control"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with SigmoidLayout(self.planted):
                return fn(*args)

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"stride_bug_target.StrideBug({self.planted}).prepare(fn, DEVICE)"  # the script imports this module


register("stride_bug", lambda arg: StrideBug(True), "eager, with sigmoid's results laid out column-major (tests only)")
register("stride_bug_control", lambda arg: StrideBug(False), "eager under the stride bug's function mode, the bug off (tests only)")
