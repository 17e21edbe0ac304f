"""The `hardtanh_up` target (tests only): eager with hardtanh two fp32 ULPs high, a planted bug in an exact op. Importable
by a campaign's workers (`imports=`), which is how a test hands them a target of its own."""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class _HardtanhUp(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.nn.functional.hardtanh:
            for _ in range(2):
                out = torch.nextafter(out, torch.full_like(out, torch.inf))
        return out


class HardtanhUp(Eager):
    def __init__(self, arg: str | None = None):
        self.name = "hardtanh_up"

    def prepare(self, fn, device):
        def run(*args):
            with _HardtanhUp():
                return fn(*args)

        return run


register("hardtanh_up", HardtanhUp, "eager with hardtanh two ULPs high (tests only)")
