"""The `gate_rounded` target: silu with its sigmoid rounded to the input dtype before the multiply (one extra rounding), all
else eager. In fp16 the gate of a large negative input is subnormal, so a few elements are several ULP off."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class _GateRounded(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.silu:
            (a,) = args
            gate = torch.sigmoid(a.float()).to(a.dtype)
            return (a.float() * gate.float()).to(a.dtype)
        return func(*args, **kwargs)


class GateRounded(Eager):
    name = "gate_rounded"

    def prepare(self, fn, device):
        def run(*args):
            with _GateRounded():
                return fn(*args)

        return run


register("gate_rounded", lambda arg: GateRounded(), "silu with its gate rounded to the input dtype (tests only)")
