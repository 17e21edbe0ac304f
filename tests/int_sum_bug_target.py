"""A planted integer bug: a compiled program whose integer sums are one too large from 16 elements on.

It is eager, run under a torch function mode that adds 1 to what `torch.sum` (function or method) and
`torch.nansum` return for an integer or bool input of 16 elements or more, as a vectorised integer
reduction whose tail loop counted one element twice would. Floats are left alone: only an integer
program shows it, and only exactly (no rounding to blame). `int_sum_bug_control` is the same mode
with the bug off.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

SUMMED = ("sum", "nansum")
FROM = 16  # elements: shorter sums take the scalar loop, which is right


class OneTooMany(TorchFunctionMode):
    def __init__(self, planted: bool):
        super().__init__()
        self.planted = planted

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        first = args[0] if args else None
        integer = isinstance(first, torch.Tensor) and not first.is_floating_point() and not first.is_complex()
        if self.planted and getattr(func, "__name__", "") in SUMMED and integer and first.numel() >= FROM and isinstance(result, torch.Tensor):
            return result + 1
        return result


class IntSumBug(Eager):
    """Eager's protocol, with integer sums of 16 elements or more one too large where `planted`."""

    def __init__(self, planted: bool):
        self.planted = planted
        self.name = "int_sum_bug" if planted else "int_sum_bug_control"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with OneTooMany(self.planted):
                return fn(*args)

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"int_sum_bug_target.IntSumBug({self.planted}).prepare(fn, DEVICE)"  # the script imports this module


register("int_sum_bug", lambda arg: IntSumBug(True), "eager, with integer sums of 16 elements or more one too large (tests only)")
register("int_sum_bug_control", lambda arg: IntSumBug(False), "eager under the integer sum bug's function mode, the bug off (tests only)")
