"""A planted target: eager, run under a TorchFunctionMode that changes what one op computes."""

from __future__ import annotations

from typing import Callable

from torch.overrides import TorchFunctionMode

from numfuzz.targets.eager import Eager


class ModeTarget(Eager):
    """Eager's protocol (no trace, nothing to reset, `fn` in repros), every call under `mode()`."""

    def __init__(self, name: str, mode: Callable[[], TorchFunctionMode]):
        self.name, self.mode = name, mode

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with self.mode():
                return fn(*args)

        return run
