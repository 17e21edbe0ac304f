"""A planted bug that only long reductions show: a split reduction whose partials are combined in the input dtype.

`split_reduction` runs the program eagerly, except `torch.sum` and `torch.mean` of a bf16 or fp16
value along a dim longer than 4096: those are split into chunks of 1024, each summed in fp32 (as a
thread's partial accumulator is), and the partials are rounded to the input dtype and added up in
it. A row of 4096 or fewer is one eager sum, so only model-sized values show it:

    numfuzz fuzz --import examples/planted_large.py --target split_reduction --large-share 1
"""

import torch
from torch.overrides import TorchFunctionMode

import numfuzz.targets

CHUNK, LONGEST_EXACT = 1024, 4096


def _split_sum(x, dim, keepdim):
    dim = dim % x.dim()
    parts = [chunk.sum(dim=dim, keepdim=True, dtype=torch.float32).to(x.dtype) for chunk in x.split(CHUNK, dim=dim)]
    total = parts[0]
    for part in parts[1:]:  # combined in the input dtype: one rounding per partial
        total = total + part
    return total if keepdim else total.squeeze(dim)


class _SplitReductions(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.sum, torch.mean) and len(args) == 1 and isinstance(kwargs.get("dim"), int):
            x, dim = args[0], kwargs["dim"]
            if x.dtype in (torch.bfloat16, torch.float16) and x.dim() and x.shape[dim] > LONGEST_EXACT:
                total = _split_sum(x, dim, kwargs.get("keepdim", False))
                return total if func is torch.sum else total / x.shape[dim]
        return func(*args, **kwargs)


class SplitReduction:
    name = "split_reduction"

    def available(self):
        return True, ""

    def reset(self):
        pass

    def prepare(self, fn, device):
        def compiled(*args):
            with _SplitReductions():
                return fn(*args)

        return compiled

    def final_trace(self, compiled):
        return None

    def repro_source(self):
        return [], 'planted_large.SplitReduction().prepare(fn, "cpu")'  # the script imports this module

    def repro_guard(self):
        return ""

    def min_elements(self, dtype, device):
        return 1


def _make(arg):
    if arg:
        raise numfuzz.targets.TargetError("split_reduction takes no argument")
    return SplitReduction()


numfuzz.targets.register("split_reduction", _make, "eager, with long bf16/fp16 sums split and their partials combined in the input dtype (a planted bug)")
