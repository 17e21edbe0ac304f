"""A planted float64 bug: a compiler whose float64 exp, log, sin, cos and tanh keep 44 bits of the 53 (a vectorised
path with a short polynomial), and its control, the same compiler without it.

`fp64bug` rounds those ops' float64 results to 44 significant bits; other dtypes and ops run as eager does.
`fp64bug:control` is the same target with nothing rounded: a campaign on it must find nothing of the kind.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

SHORT = (torch.exp, torch.log, torch.sin, torch.cos, torch.tanh, torch.Tensor.exp, torch.Tensor.log, torch.Tensor.sin, torch.Tensor.cos, torch.Tensor.tanh)
KEPT_BITS = 44


def _shortened(x: torch.Tensor) -> torch.Tensor:
    """x with its float64 significand cut to KEPT_BITS bits (to nearest)."""
    mantissa, exponent = torch.frexp(x)
    scale = float(2**KEPT_BITS)
    return torch.ldexp(torch.round(mantissa * scale) / scale, exponent)


class ShortFloat64(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in SHORT and isinstance(out, torch.Tensor) and out.dtype == torch.float64:
            with torch._C.DisableTorchFunction():
                return torch.where(torch.isfinite(out), _shortened(out), out)
        return out


class Fp64Bug(Eager):
    def __init__(self, control: bool):
        self.control = control
        self.name = "fp64bug:control" if control else "fp64bug"

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"fp64_target.Fp64Bug({self.control}).prepare(fn, DEVICE)"  # the script imports this module

    def prepare(self, fn: Callable, device: str) -> Callable:
        if self.control:
            return fn

        def run(*args):
            with ShortFloat64():
                return fn(*args)

        return run


register("fp64bug", lambda arg: Fp64Bug(arg == "control"), "float64 exp, log, sin, cos, tanh to 44 bits (tests only; :control without)")
