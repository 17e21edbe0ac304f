"""A planted NaN bug: a compiled program whose mean over an empty dim gives 0, where eager and float64 give NaN (0/0).

It is eager, run under a torch function mode that replaces the NaN of `torch.mean` (and `Tensor.mean`) by 0 wherever
its input is empty, as a kernel that divided the sum by max(count, 1) would. Only an empty reduction is touched: a
mean of NaN inputs stays NaN. `nan_bug_control` is the same mode with the bug off.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class EmptyMeanIsZero(TorchFunctionMode):
    def __init__(self, planted: bool):
        super().__init__()
        self.planted = planted

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if self.planted and getattr(func, "__name__", "") == "mean" and isinstance(args[0], torch.Tensor) and args[0].numel() == 0:
            return result.nan_to_num(nan=0.0)
        return result


class NanBug(Eager):
    """Eager's protocol, with a mean over an empty dim giving 0 where `planted`."""

    def __init__(self, planted: bool):
        self.planted = planted
        self.name = "nan_bug" if planted else "nan_bug_control"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with EmptyMeanIsZero(self.planted):
                return fn(*args)

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"nan_bug_target.NanBug({self.planted}).prepare(fn, DEVICE)"  # the script imports this module


register("nan_bug", lambda arg: NanBug(True), "eager, with a mean over an empty dim giving 0, not NaN (tests only)")
register("nan_bug_control", lambda arg: NanBug(False), "eager under the NaN bug's function mode, the bug off (tests only)")
