"""Windows of real models' graphs as the start of a program: `--models-share`.

The zoo (`numfuzz/data/zoo/*.json`, written by `scripts/model_zoo`) holds, per model and step
(forward; "train": forward with its loss, whose backward `--grad-share` judges), the calls of its captured graph that map onto the op table, as a
numfuzz program in bf16, with each node's module path. A window is a run of consecutive nodes of
one of them: what the window reads but does not compute becomes a fresh input of the shape it had
(integers stay indices within their bound, a value an op takes in a domain is drawn in it), and
the window's dtype is the case's (bf16 in the zoo, its casts to bf16 too). The generator grows and
swaps it as it does a block, and the case records which model and nodes it came from.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass
from importlib import resources
from typing import Any

from numfuzz.program.blocks import Builder
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.ops import OPS, index_ranges, infer_specs

ZOO_DTYPE = "bf16"
WINDOW = (2, 12)  # ops in a window, fewest and most


@dataclass(frozen=True)
class ZooGraph:
    name: str  # "qwen2-forward"
    model: str  # the model spec it was captured from: "hf:qwen2"
    graph: Graph
    modules: tuple[str, ...]  # per node: the module whose forward makes it
    specs: tuple[TensorSpec, ...]  # every value's, as `infer_specs` gives them: worked out once, at loading
    ranges: dict[int, tuple[int, frozenset[int]]]  # its index values' bounds (`index_ranges`), likewise


@functools.cache
def load_zoo() -> tuple[ZooGraph, ...]:
    """Every graph of the zoo, by name; none where the zoo is empty."""
    found = []
    folder = resources.files("numfuzz.data") / "zoo"
    if not folder.is_dir():
        return ()
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text())
            graph = Graph.from_json(data["graph"])
            specs = tuple(infer_specs(graph))
            found.append(ZooGraph(entry.name.removesuffix(".json"), data["model"], graph, tuple(data["modules"]), specs, index_ranges(graph, list(specs))))
    return tuple(found)


def start_from_zoo(b: Builder, dtype: str) -> dict[str, Any]:
    """A window as the graph's start, and where it came from ({"zoo": ...}); {} (nothing built) where the drawn one
    does not fit."""
    saved = b.snapshot()
    try:
        return {"zoo": draw_window(b, dtype, set(b.config.ops))}
    except GraphError:
        b.restore(saved)
        return {}


def _retyped(node: Node, dtype: str) -> Node:
    """The node with the zoo's bf16 (a cast's target, an autocast region) as the case's dtype."""
    if dtype == ZOO_DTYPE:
        return node
    attrs = {k: (dtype if k in ("dtype", "autocast") and v == ZOO_DTYPE else v) for k, v in node.attrs}
    return Node.make(node.op, node.args, **attrs)


def draw_window(b: Builder, dtype: str, allowed: set[str]) -> dict[str, Any]:
    """A window of a zoo graph built on the generator's builder `b` (its inputs and nodes); where it came from.
    GraphError where the drawn window does not fit (an op outside `allowed`, a value the builder refuses)."""
    zoo = load_zoo()
    if not zoo:
        raise GraphError("the model zoo is empty")
    rng: random.Random = b.rng
    source = rng.choice(zoo)
    graph, n_in = source.graph, len(source.graph.inputs)
    length = min(rng.randint(*WINDOW), len(graph.nodes))
    start = rng.randrange(len(graph.nodes) - length + 1)
    window = graph.nodes[start : start + length]
    if any(node.op not in allowed for node in window):
        raise GraphError("the window has an op outside --ops")
    specs, ranges = source.specs, source.ranges
    domains: dict[int, str] = {}  # a value the window reads: the domain one of its readers needs ("any" where none does)
    for node in window:
        for position, value in enumerate(node.args):
            if domains.get(value, "any") == "any":
                domains[value] = OPS[node.op].domain(position)
    made: dict[int, int] = {}  # the zoo graph's value -> the builder's
    for k, node in enumerate(window):
        args = []
        for value in node.args:
            if value not in made:
                made[value] = _fresh(b, specs[value], ranges.get(value), domains[value], dtype)
            args.append(made[value])
        made[n_in + start + k] = b.add_node(_retyped(Node(node.op, tuple(args), node.attrs), dtype))
    return {"model": source.model, "graph": source.name, "nodes": [start, start + length], "module": source.modules[start]}


def _fresh(b: Builder, spec: TensorSpec, index_range: tuple[int, frozenset[int]] | None, domain: str, dtype: str) -> int:
    """A new input standing for a value the window reads: an index within its bound, else a float of the case's dtype."""
    if spec.dtype == "i64":
        if index_range is None:
            raise GraphError("an integer value with no index bound")
        return b.new_index_input(spec.shape, index_range[0])
    return b.new_input(spec.shape, dtype if spec.dtype == ZOO_DTYPE else spec.dtype, domain)
