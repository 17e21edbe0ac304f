"""Two targets for autocast regions: one that drops autocast's low-precision cast (more accurate: never a finding),
one that computes autocast's fp32 ops in the region's dtype and hands back fp32 (a planted bug: Thunder 0.2.6 does
so, returning the low dtype; this one keeps eager's dtype so that the oracle, not the dtype check, must catch it)."""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

FP32_OPS = {torch.prod, F.mse_loss, F.cross_entropy, F.kl_div}


class _Fp32InLowDtype(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in FP32_OPS and torch.is_autocast_enabled("cpu"):
            low = torch.get_autocast_dtype("cpu")
            with torch.autocast("cpu", enabled=False):
                down = [a.to(low) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
                return func(*down, **kwargs).to(torch.float32)
        return func(*args, **kwargs)


class _FullPrecisionMatmul(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (F.linear, torch.matmul) and torch.is_autocast_enabled("cpu"):
            low = torch.get_autocast_dtype("cpu")
            with torch.autocast("cpu", enabled=False):
                return func(*[a.float() if isinstance(a, torch.Tensor) else a for a in args], **kwargs).to(low)
        return func(*args, **kwargs)


class _Moded(Eager):
    def __init__(self, name: str, mode: type) -> None:
        self.name, self._mode = name, mode

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with self._mode():
                return fn(*args)

        return run


register("fp32_ops_low", lambda arg: _Moded("fp32_ops_low", _Fp32InLowDtype), "autocast's fp32 ops in the region's dtype (tests only)")
register("matmul_full", lambda arg: _Moded("matmul_full", _FullPrecisionMatmul), "autocast's matmuls in fp32, rounded after (tests only)")
