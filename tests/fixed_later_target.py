"""A compiler bug that a later release fixes, and a front end that cannot run on that release: what the
confirmation on the newest versions is tested with.

`fixedlater` computes expm1 as exp(x) - 1, which cancels near zero, except where $NUMFUZZ_TEST_RELEASE is
"fixed" (the newer release). `frontend` runs the same code and is unavailable wherever $NUMFUZZ_TEST_RELEASE is
set at all, as Thunder is on a torch it does not import on; the compiler behind it is `fixedlater`. `frontendbug`
is the same front end whose compiler behind it is eager: there the bug is the front end's own.
"""

from __future__ import annotations

import os
from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

RELEASE = "NUMFUZZ_TEST_RELEASE"


class CancellingExpm1(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.expm1, torch.Tensor.expm1):
            return torch.exp(args[0]) - 1
        return func(*args, **kwargs)


class FixedLater(Eager):
    name = "fixedlater"

    def prepare(self, fn: Callable, device: str) -> Callable:
        if os.environ.get(RELEASE) == "fixed":
            return fn

        def run(*args):
            with CancellingExpm1():
                return fn(*args)

        return run


class FrontEnd(FixedLater):
    name = "frontend"
    compiler_behind = "fixedlater"

    def available(self) -> tuple[bool, str]:
        return (False, f"the front end does not run on release {os.environ[RELEASE]!r}") if RELEASE in os.environ else (True, "")


class FrontEndBug(FrontEnd):
    """The same bug, the front end's own: the compiler behind it (eager) does not have it."""

    name = "frontendbug"
    compiler_behind = "eager"


register("fixedlater", lambda arg: FixedLater(), "expm1 as exp(x) - 1 until a later release (tests only)")
register("frontend", lambda arg: FrontEnd(), "fixedlater's code behind a front end the later release lacks (tests only)")
register("frontendbug", lambda arg: FrontEndBug(), "frontend's bug, with eager behind it (tests only)")
