"""A planted index bug: a compiled program whose index reductions miss by one on an input that is not contiguous.

It is eager, run under a torch function mode that moves what `torch.argmax`, `torch.argmin` and `torch.max` with a
dim return as indices one place on along the dim (wrapping), wherever their input is not contiguous, as a kernel that
walked a transposed input with the wrong stride would. The values a wrong index selects are not the extreme, so a
program that uses the indices (numfuzz's index ops select with them) is wrong by far more than rounding.
`index_bug_control` is the same mode with the bug off.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

INDEXED = ("argmax", "argmin", "max")


def missed(x: torch.Tensor, indices: torch.Tensor, dim: int) -> torch.Tensor:
    """`indices` one place on along `dim`, wrapping: a neighbour's position, never the extreme's (where values differ)."""
    return (indices + 1) % x.shape[dim]


class MissedIndex(TorchFunctionMode):
    def __init__(self, planted: bool):
        super().__init__()
        self.planted = planted

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        if not (self.planted and name in INDEXED and isinstance(dim, int) and not args[0].is_contiguous()):
            return result
        if name == "max":
            return torch.return_types.max((result.values, missed(args[0], result.indices, dim)))
        return missed(args[0], result, dim)


class IndexBug(Eager):
    """Eager's protocol, with index reductions of non-contiguous inputs one place off where `planted`."""

    def __init__(self, planted: bool):
        self.planted = planted
        self.name = "index_bug" if planted else "index_bug_control"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with MissedIndex(self.planted):
                return fn(*args)

        return run

    def repro_source(self) -> tuple[list[str], str]:
        return [], f"index_bug_target.IndexBug({self.planted}).prepare(fn, DEVICE)"  # the script imports this module


register("index_bug", lambda arg: IndexBug(True), "eager, with index reductions of non-contiguous inputs one place off (tests only)")
register("index_bug_control", lambda arg: IndexBug(False), "eager under the index bug's function mode, the bug off (tests only)")
