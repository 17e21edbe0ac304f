"""The `cast_elided` target: selu of an fp16 value the program rounded from fp32 is computed in fp32 on an unrounded value
and rounded once, all else eager. The value is the fp32 source reflected about its rounding: within half an fp16 ULP of
the rounded input as the source is, but not the source itself, so the program with the cast taken as a no-op does not
explain it (`cast_dropped`) and only the bound for unrounded inputs does, as for a fused kernel's own fp32 arithmetic."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class _CastElided(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.sources: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # id of a rounded value -> (it, its fp32 source)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.selu and id(args[0]) in self.sources:
            rounded, source = self.sources[id(args[0])]
            # the fp32 source reflected about its rounding: as far from the rounded value as the source, on the other side
            return F.selu(2 * rounded.float() - source).to(rounded.dtype)
        out = func(*args, **kwargs)
        if func is torch.Tensor.to and isinstance(out, torch.Tensor) and out.dtype == torch.float16 and args[0].dtype == torch.float32:
            self.sources[id(out)] = (out, args[0])
        return out


class CastElided(Eager):
    name = "cast_elided"

    def prepare(self, fn, device):
        def run(*args):
            with _CastElided():
                return fn(*args)

        return run


register("cast_elided", lambda arg: CastElided(), "selu of an fp16 value rounded from fp32 computed on the fp32 value (tests only)")
