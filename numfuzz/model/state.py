"""State a run leaves behind, kept from the runs after it: a model's buffers, and PyTorch's global modes.

Each side of a judgement (eager, the float64 reference, the target) starts from the model's own buffers, however a run
before it reassigned them (`self.pe = self.pe.to(x.dtype)`), and from the global modes as they were before the call. What
a call leaves the modes as is noted, so that a compiled call that leaves them other than eager's does is a finding
(`model.verdict.state_left`): Thunder's jit, after a cache hit, leaves grad mode as it found it, not as the function
leaves it (docs/issues/thunder_grad_mode_after_cache_hit_is_the_entry_mode.py), and a user's next backward fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

GlobalState = dict[str, str]  # a mode's name -> its value in words ("on", "off", "bfloat16")


@contextmanager
def buffers_kept(fn: Callable) -> Iterator[None]:
    """Within the block, `fn` (a module; anything else is left alone) may reassign its submodules' buffers; after it,
    each submodule has the buffers it had before, the same tensors."""
    modules = list(fn.modules()) if isinstance(fn, torch.nn.Module) else []
    kept = [dict(m._buffers) for m in modules]
    try:
        yield
    finally:
        for module, buffers in zip(modules, kept):
            module._buffers.clear()
            module._buffers.update(buffers)


@dataclass(frozen=True)
class Mode:
    """One of PyTorch's process-wide modes: its name, how to read it, how to set it back to what was read, and its value in words."""

    name: str
    read: Callable[[], Any]
    set_back: Callable[[Any], None]
    words: Callable[[Any], str]


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def _dtype_words(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _autocast(device: str) -> Mode:
    """Autocast's flag and dtype on a device type; both are read and set on a machine without the device too."""

    def set_back(value: tuple[bool, torch.dtype]) -> None:
        torch.set_autocast_enabled(device, value[0])
        torch.set_autocast_dtype(device, value[1])

    def read() -> tuple[bool, torch.dtype]:
        return torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)

    return Mode(f"autocast on {device}", read, set_back, lambda value: _dtype_words(value[1]) if value[0] else "off")


MODES = (
    Mode("grad mode", torch.is_grad_enabled, torch.set_grad_enabled, _on),
    _autocast("cpu"),
    _autocast("cuda"),
    Mode("the default dtype", torch.get_default_dtype, torch.set_default_dtype, _dtype_words),
    Mode(
        "deterministic algorithms",
        lambda: (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()),
        lambda value: torch.use_deterministic_algorithms(value[0], warn_only=value[1]),
        lambda value: _on(value[0]),
    ),
)


def global_state() -> GlobalState:
    """PyTorch's process-wide modes that a call may set, and a compiled call must leave as eager's does, in words."""
    return {mode.name: mode.words(mode.read()) for mode in MODES}


@contextmanager
def state_noted(after: list[GlobalState] | None) -> Iterator[None]:
    """Appends the global modes as the block leaves them to `after` (where given), then sets them back as they were
    before the block: a call that leaves grad mode off does not turn the judging after it, or the next cell, off."""
    before = [mode.read() for mode in MODES]
    try:
        yield
        if after is not None:
            after.append(global_state())
    finally:
        for mode, value in zip(MODES, before):
            mode.set_back(value)
