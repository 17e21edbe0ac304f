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


AUTOCAST_DEVICES = ("cpu", "cuda")  # autocast's flag and dtype are per device type, and read on a machine without the device too


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def global_state() -> GlobalState:
    """PyTorch's process-wide modes that a call may set, and a compiled call must leave as eager's does."""
    state = {"grad mode": _on(torch.is_grad_enabled())}
    for device in AUTOCAST_DEVICES:
        state[f"autocast on {device}"] = str(torch.get_autocast_dtype(device)).removeprefix("torch.") if torch.is_autocast_enabled(device) else "off"
    state["the default dtype"] = str(torch.get_default_dtype()).removeprefix("torch.")
    state["deterministic algorithms"] = _on(torch.are_deterministic_algorithms_enabled())
    return state


@contextmanager
def state_noted(after: list[GlobalState] | None) -> Iterator[None]:
    """Appends the global modes as the block leaves them to `after` (where given), then sets them back as they were
    before the block: a call that leaves grad mode off does not turn the judging after it, or the next cell, off."""
    grad, default_dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    deterministic, warn_only = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    autocast = {device: (torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)) for device in AUTOCAST_DEVICES}
    try:
        yield
        if after is not None:
            after.append(global_state())
    finally:
        torch.set_grad_enabled(grad)
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.set_default_dtype(default_dtype)
        for device, (enabled, dtype) in autocast.items():
            torch.set_autocast_enabled(device, enabled)
            torch.set_autocast_dtype(device, dtype)
