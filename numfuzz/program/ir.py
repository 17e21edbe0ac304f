"""The program under test as pure data: inputs, nodes in topological order, outputs.

Values are numbered: inputs first (0..n_inputs-1), then one value per node.
Nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from numfuzz.program.dtypes import check_input_dtype, is_integer
from numfuzz.program.layout import Layout, LayoutError


class GraphError(ValueError):
    """A graph that is not well formed."""


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    dtype: str
    layout: Layout | None = None  # an input's strided view (`program.layout`); None: plain, contiguous

    def __post_init__(self) -> None:
        check_input_dtype(self.dtype)
        if any((not isinstance(d, int)) or d < 0 for d in self.shape):
            raise GraphError(f"bad shape {self.shape!r}")
        if self.layout is not None and self.layout.plain:
            object.__setattr__(self, "layout", None)
        if self.layout is not None:
            if is_integer(self.dtype):
                raise GraphError(f"an integer input is contiguous; got layout {self.layout.to_json()}")
            try:
                self.layout.check_fits(self.shape)
            except (LayoutError, IndexError) as exc:
                raise GraphError(f"layout {self.layout.to_json()} does not fit shape {list(self.shape)}: {exc}") from None

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_layout(self, layout: Layout | None) -> TensorSpec:
        return TensorSpec(self.shape, self.dtype, layout)

    def to_json(self) -> dict:
        data: dict = {"shape": list(self.shape), "dtype": self.dtype}
        if self.layout is not None:  # absent when plain, so older cases keep their content hash
            data["layout"] = self.layout.to_json()
        return data

    @staticmethod
    def from_json(data: dict) -> TensorSpec:
        shape = tuple(int(d) for d in data["shape"])
        try:
            layout = Layout.from_json(data["layout"], len(shape)) if "layout" in data else None
        except LayoutError as exc:
            raise GraphError(f"bad layout of an input {list(shape)}: {exc}") from None
        return TensorSpec(shape, str(data["dtype"]), layout)


@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]
    attrs: tuple[tuple[str, Any], ...] = field(default=())

    @staticmethod
    def make(op: str, args: tuple[int, ...] | list[int], **attrs: Any) -> Node:
        return Node(op, tuple(args), tuple(sorted((k, _freeze(v)) for k, v in attrs.items())))

    def attr(self, name: str, default: Any = None) -> Any:
        for key, value in self.attrs:
            if key == name:
                return value
        return default

    @property
    def attr_dict(self) -> dict[str, Any]:
        return dict(self.attrs)

    def to_json(self) -> dict:
        return {"op": self.op, "args": list(self.args), "attrs": {k: _thaw(v) for k, v in self.attrs}}

    @staticmethod
    def from_json(data: dict) -> Node:
        return Node.make(str(data["op"]), [int(a) for a in data["args"]], **dict(data.get("attrs", {})))


@dataclass(frozen=True)
class Graph:
    inputs: tuple[TensorSpec, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[int, ...]

    def __post_init__(self) -> None:
        n_in = len(self.inputs)
        for i, node in enumerate(self.nodes):
            for a in node.args:
                if not 0 <= a < n_in + i:
                    raise GraphError(f"node {i} ({node.op}) refers to value {a}, not yet defined")
        if not self.outputs:
            raise GraphError("graph has no outputs")
        for o in self.outputs:
            if not 0 <= o < n_in + len(self.nodes):
                raise GraphError(f"output refers to undefined value {o}")

    @property
    def n_values(self) -> int:
        return len(self.inputs) + len(self.nodes)

    def to_json(self) -> dict:
        return {
            "inputs": [s.to_json() for s in self.inputs],
            "nodes": [n.to_json() for n in self.nodes],
            "outputs": list(self.outputs),
        }

    @staticmethod
    def from_json(data: dict) -> Graph:
        try:
            return Graph(
                tuple(TensorSpec.from_json(s) for s in data["inputs"]),
                tuple(Node.from_json(n) for n in data["nodes"]),
                tuple(int(o) for o in data["outputs"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise GraphError(f"malformed graph: {exc!r}") from None

    def content_hash(self) -> str:
        return hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
