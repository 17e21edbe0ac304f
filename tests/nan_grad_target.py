"""The `nan_grad_zeroed` target: eager, with every NaN of an input's gradient replaced by 0 (tests only): a backward that
drops NaNs the inputs carry into it."""

from __future__ import annotations

import torch

from numfuzz.targets import register
from numfuzz.targets.eager import Eager


class NanGradZeroed(Eager):
    name = "nan_grad_zeroed"

    def prepare(self, fn, device):
        def run(*args):
            for x in args:
                if isinstance(x, torch.Tensor) and x.requires_grad:
                    x.register_hook(lambda g: g.nan_to_num(nan=0.0))
            return fn(*args)

        return run


register("nan_grad_zeroed", lambda arg: NanGradZeroed(), "eager with the NaNs of each input's gradient made 0 (tests only)")
