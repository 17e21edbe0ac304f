"""The function of tensors every target is given for a zoo model: the transformers model called with its inputs by name."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._pytree import tree_flatten


class ZooModel(torch.nn.Module):
    """A transformers model called with its inputs by name, giving plain tensors: its loss (with the ids as labels, for a
    training step of a model that has one), or every floating tensor of its output in order."""

    def __init__(self, model: torch.nn.Module, names: tuple[str, ...], prefix: torch.Tensor | None = None, labelled: bool = False):
        super().__init__()
        self.model = model
        self.names = names
        self.labelled = labelled
        # image tokens put before the drawn text ids, as many as the image gives features: drawn ids stay text
        self.register_buffer("prefix", prefix, persistent=False)

    def forward(self, *inputs: torch.Tensor) -> Any:
        named = dict(zip(self.names, inputs))
        if self.prefix is not None:
            named["input_ids"] = torch.cat([self.prefix.expand(named["input_ids"].shape[0], -1), named["input_ids"]], dim=1)
        if self.labelled:
            return self.model(**named, labels=named.get("decoder_input_ids", named.get("input_ids"))).loss
        out = self.model(**named)
        leaves = out.to_tuple() if hasattr(out, "to_tuple") else out
        flat, _ = tree_flatten(leaves)
        return tuple(t for t in flat if isinstance(t, torch.Tensor) and t.is_floating_point())
