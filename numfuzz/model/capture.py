"""What a model's submodules receive: each call, in the order the model makes them, with its arguments as eager gave them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._pytree import tree_map


@dataclass
class ModuleCall:
    path: str  # as named_modules names it
    module: torch.nn.Module
    args: tuple
    kwargs: dict = field(default_factory=dict)


def _detached(value: Any) -> Any:
    """A copy of every tensor in `value` (tuples, named tuples, lists and dicts kept as they are)."""
    return tree_map(lambda v: v.detach().clone() if isinstance(v, torch.Tensor) else v, value)


def module_calls(model: torch.nn.Module, inputs: list[Any]) -> list[ModuleCall]:
    """Each submodule's first call during `model(*inputs)` in eager, in call order; containers that are never called
    (ModuleList) do not appear. The arguments are copies: judging a module later cannot change them."""
    calls: dict[str, ModuleCall] = {}
    handles = []
    for path, module in model.named_modules():
        if not path:
            continue

        def record(module: torch.nn.Module, args: tuple, kwargs: dict, path: str = path) -> None:
            calls.setdefault(path, ModuleCall(path, module, _detached(args), _detached(kwargs)))

        handles.append(module.register_forward_pre_hook(record, with_kwargs=True))
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for handle in handles:
            handle.remove()
    return list(calls.values())
