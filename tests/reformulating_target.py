"""A target that computes two ops by other formulas, as compilers do: one harmless, one a bug.

* `addcmul(a, b, c, value=v)` as `a + (v*b)*c`, rounding after each op in fp32 where eager
  rounds once: where the sum cancels (a close to -v*b*c) the result is many ULPs from float64,
  yet it is the exact addcmul of inputs moved by less than one ULP. Backward stable: benign.
* `expm1(x)` as `exp(x) - 1`, which cancels for small x where expm1 is well conditioned: no
  input within a few ULPs explains its result. A real bug.
* `pow(x, p)` with the Python-float exponent rounded to fp32, as ATen's vectorised kernel takes
  it (eager's small tensors keep it in double): 7 ULP off at x near 16000, yet exact for the
  exponent so rounded. Benign.
* `tanhshrink(x)` as `x - tanh(x)` with a tanh one ULP high, as a vectorised tanh may be: near 0
  many ULPs of the cancelled result off, yet one ULP of its input. Benign.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class Reformulate(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.addcmul:
            a, b, c = args
            return a + (kwargs.get("value", 1) * b) * c
        if func is torch.expm1:
            return torch.exp(args[0]) - 1
        if func is torch.nn.functional.tanhshrink:
            t = torch.tanh(args[0])
            return args[0] - torch.nextafter(t, torch.full_like(t, torch.inf))
        if func is torch.pow and isinstance(args[1], float):
            return func(args[0], float(torch.tensor(args[1], dtype=torch.float32)))
        return func(*args, **kwargs)


class Reformulated(Eager):
    name = "reformulated"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with Reformulate():
                return fn(*args)

        return run


register("reformulated", lambda arg: Reformulated(), "addcmul, expm1, pow and tanhshrink by other formulas (tests only)")
