"""A model's buffers as they were before a run: each side of a judgement (eager, the float64 reference, the target)
starts from the model's own state, however a run before it reassigned them (`self.pe = self.pe.to(x.dtype)`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch


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
