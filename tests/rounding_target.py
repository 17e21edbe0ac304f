"""A target more accurate than eager: every op computed in float64 on its inputs, then rounded once.

It is eager as it should be (each op correctly rounded), so wherever it differs from eager it is
closer to float64 at that op. An ill-conditioned op downstream can still turn such a difference
into a large one at an output: the case the analysis must call `amplified`.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.program.lowering import ROUND_TO_SOURCE
from numfuzz.targets import register
from numfuzz.targets.eager import Eager

_namespace: dict = {"torch": torch}
exec(ROUND_TO_SOURCE, _namespace)
round_to = _namespace["round_to"]


def _up(a):
    return a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a


class PerOpRounding(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not isinstance(out, torch.Tensor) or not out.is_floating_point() or out.dtype == torch.float64:
            return out
        with torch._C.DisableTorchFunction():
            exact = func(*[_up(a) for a in args], **{k: _up(v) for k, v in kwargs.items()})
            return round_to(exact, out.dtype) if isinstance(exact, torch.Tensor) and exact.dtype == torch.float64 else out


class CorrectlyRounded(Eager):
    """Eager's protocol (no trace, nothing to reset, `fn` in repros), with every op rounded once."""

    name = "rounded"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with PerOpRounding():
                return fn(*args)

        return run


register("rounded", lambda arg: CorrectlyRounded(), "every op in float64, rounded once (tests only)")
