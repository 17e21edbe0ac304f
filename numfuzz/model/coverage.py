"""How much of a captured model the op table maps: the captured calls counted, mapped, passed through, or with no op."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import torch

from numfuzz.model.mapping import Mapped, PassThrough, map_node


def call_name(node: torch.fx.Node) -> str:
    """How a captured call is named in a report: `linear`, `to`, `scaled_dot_product_attention`."""
    return str(node.target) if node.op != "call_function" else getattr(node.target, "__name__", str(node.target))


def called_ops(nodes: list[torch.fx.Node]) -> frozenset[str]:
    """The ops a capture calls, as known-issue rules name them: each call's own name (`einsum`) and, where the op table
    maps it, its op."""
    found: set[str] = set()
    for node in nodes:
        if node.op in ("call_function", "call_method"):
            found.add(call_name(node))
            mapped = map_node(node)
            if isinstance(mapped, Mapped):
                found.add(mapped.op)
    return frozenset(found)


@dataclass
class Coverage:
    """How many of a capture's calls the op table maps, and the floating calls it does not, by name."""

    calls: int
    mapped: int
    passed: int  # calls that keep their argument's values
    missing: Counter = field(default_factory=Counter)  # calls with a floating result and no op, by name
    bookkeeping: int = 0  # calls with no op whose result is not floating: positions, masks, sizes

    def describe(self) -> str:
        head = f"{self.mapped + self.passed} of {self.calls} captured calls map onto the op table ({self.passed} pass values through)"
        if self.bookkeeping:
            head += f"; {self.bookkeeping} of the rest compute integers or masks"
        if not self.missing:
            return head
        return head + "; floating calls with no op: " + ", ".join(f"{name} x{n}" if n > 1 else name for name, n in self.missing.most_common())

    @property
    def floating(self) -> int:
        """The calls with a floating result: those mapped or passed, and those with no op."""
        return self.calls - self.bookkeeping

    @property
    def share(self) -> float:
        """The share of the floating calls that map (or pass their values through)."""
        return (self.mapped + self.passed) / self.floating if self.floating else 1.0

    def to_json(self) -> dict:
        return {"calls": self.calls, "mapped": self.mapped, "passed": self.passed, "bookkeeping": self.bookkeeping, "missing": dict(self.missing)}

    @staticmethod
    def from_json(data: dict) -> Coverage:
        return Coverage(int(data["calls"]), int(data["mapped"]), int(data["passed"]), Counter(data.get("missing", {})), int(data.get("bookkeeping", 0)))


_BOOKKEEPING = {"_log_api_usage_once", "_set_grad_enabled", "_enter_autocast", "_exit_autocast"}


def coverage(nodes: list[torch.fx.Node], mapped: dict[torch.fx.Node, Mapped | PassThrough | None] | None = None) -> Coverage:
    """The op table's coverage of captured calls (Dynamo's bookkeeping calls left out); `mapped`: each node's
    `map_node` where the caller has it already."""
    counted = [n for n in nodes if n.op in ("call_function", "call_method") and call_name(n) not in _BOOKKEEPING]
    result = Coverage(len(counted), 0, 0)
    for node in counted:
        found = mapped[node] if mapped is not None else map_node(node)
        if isinstance(found, PassThrough):
            result.passed += 1
        elif found is not None:
            result.mapped += 1
        elif _is_floating(node.meta.get("example_value")):
            result.missing[call_name(node)] += 1
        else:
            result.bookkeeping += 1
    return result


def _is_floating(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_is_floating(v) for v in value)
    return isinstance(value, torch.Tensor) and value.is_floating_point()
