"""A module's captured graph as a numfuzz program: the calls the op table maps, with the values eager gave them.

The module is captured as Dynamo captures it for a compiler and its graph run once, in eager, by an
FX interpreter that keeps every value. Each call the op table maps (`numfuzz.model.mapping`) becomes
a node of a numfuzz graph; a value the region uses but does not compute (the module's inputs, its
parameters, what an unmapped call computed) becomes an input, and its value is the one eager gave
it there. The region is cut around each call the table has no op for. Each mapped node is checked
against eager: the one-op program on its inputs must give eager's bits, or it is cut too. The
region's outputs are its values that the rest of the graph, or the module's result, uses.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch.amp.autocast_mode import _enter_autocast, _exit_autocast
from torch.utils._pytree import tree_map

from numfuzz.model.coverage import Coverage, call_name, coverage
from numfuzz.model.mapping import DTYPE_NAMES, Mapped, PassThrough, is_program_dtype, map_node, program_value, spec_of
from numfuzz.program.autocast import ATTR as AUTOCAST
from numfuzz.program.ir import Graph, GraphError, Node
from numfuzz.program.lowering import compile_source, lower


@dataclass
class Region:
    graph: Graph
    samples: list[list[torch.Tensor]]  # one sample: the values eager gave the region's inputs
    sources: list[str]  # per node of `graph`: where the model's code makes that call ("model.py:22  h = x.to(torch.float32)")
    modules: list[str]  # per node of `graph`: the module whose forward makes it ("model.layers.0.mlp"; "" for the top)
    coverage: Coverage  # of the module's captured calls
    cut: Counter = field(default_factory=Counter)  # the calls around which the region was cut, by name


class _Recording(torch.fx.Interpreter):
    def __init__(self, gm: torch.fx.GraphModule, values: dict):
        super().__init__(gm)
        self.values = values

    def run_node(self, n: torch.fx.Node) -> Any:
        out = super().run_node(n)
        # a copy: an in-place call later (`F.relu(x, inplace=True)`, `out += identity`) must not change what was recorded
        self.values[n] = tree_map(lambda v: v.detach().clone() if isinstance(v, torch.Tensor) else v, out)
        return out


def capture_values(fn: Callable, args: tuple, kwargs: dict) -> list[tuple[torch.fx.GraphModule, dict]]:
    """Each graph Dynamo captures from `fn(*args, **kwargs)`, with every node's value as eager computes it."""
    import torch._dynamo

    captured: list[tuple[torch.fx.GraphModule, dict]] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        values: dict = {}
        captured.append((gm, values))
        return lambda *a: _Recording(gm, values).run(*a)

    torch._dynamo.reset()
    try:
        with torch.no_grad():
            torch.compile(fn, backend=backend, dynamic=False)(*args, **kwargs)
    finally:
        torch._dynamo.reset()
    return captured


def source_line(node: torch.fx.Node) -> str:
    """Where the model's code makes a captured call: its file's name, line and text, from the trace Dynamo keeps."""
    trace = (node.meta.get("stack_trace") or "").rstrip().splitlines()
    for k in range(len(trace) - 1, -1, -1):
        found = re.match(r'\s*File "(.+)", line (\d+), in (\S+)', trace[k])
        if found:
            text = trace[k + 1].strip() if k + 1 < len(trace) else ""
            return f"{found[1].rsplit('/', 1)[-1]}:{found[2]}  {text}"
    return "(no source line)"


def module_path(node: torch.fx.Node) -> str:
    """The module whose forward makes a captured call, as named_modules names it ("model.layers.0.mlp")."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path = re.sub(r"^L\['[^']+'\](\[\d+\])?", "", list(stack.values())[-1][0])  # the frame's local: the model itself
    path = re.sub(r"_modules\['([^']+)'\]", r"\1", path)
    path = re.sub(r"\[(\d+)\]", r".\1", path)
    return path.replace("..", ".").strip(".")


def same_bits(a: Any, b: Any) -> bool:
    """The same shape, dtype and values bit for bit (the sign of a zero too); any NaN is the same as any other."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype):
        return False
    if not a.is_floating_point():
        return torch.equal(a, b)
    return bool((((a == b) & (torch.signbit(a) == torch.signbit(b))) | (torch.isnan(a) & torch.isnan(b))).all())


def _gives_eagers_bits(mapped: Mapped, values: list[torch.Tensor], expected: Any) -> bool:
    """The one-op program on the node's inputs computes what eager computed there."""
    specs = [spec_of(v) for v in values]
    try:
        graph = Graph(tuple(specs), (Node.make(mapped.op, list(range(len(values))), **mapped.attrs),), (len(values),))
        got = compile_source(lower(graph))(*values)
    except (GraphError, RuntimeError, TypeError, ValueError, KeyError, IndexError):
        return False
    return same_bits(got[0] if isinstance(got, (tuple, list)) else got, expected)


class _Builder:
    """The numfuzz graph grown call by call; values are ("input", k) or ("node", j) until the inputs are all known."""

    def __init__(self, values: dict):
        self.values = values
        self.refs: dict[torch.fx.Node, tuple[str, int]] = {}
        self.inputs: list[torch.fx.Node] = []
        self.nodes: list[tuple[str, list[tuple[str, int]], dict]] = []
        self.made_by: list[torch.fx.Node] = []
        self.autocast: str | None = None  # the dtype of the autocast region the graph is in, where it is in one

    def ref(self, node: torch.fx.Node) -> tuple[str, int] | None:
        """The node's value in the graph; a new input's place for a value the graph does not compute; None where no input can hold it."""
        if node in self.refs:
            return self.refs[node]
        value = program_value(self.values.get(node))
        if not is_program_dtype(value) or spec_of(value) is None:
            return None
        return ("input", len(self.inputs))

    def add(self, node: torch.fx.Node, mapped: Mapped) -> bool:
        if self.autocast is not None:
            mapped.attrs[AUTOCAST] = self.autocast
        refs = [self.ref(t) for t in mapped.tensors]
        if any(r is None for r in refs) or not _gives_eagers_bits(
            mapped, [program_value(self.values[t]).contiguous() for t in mapped.tensors], self.values.get(node)
        ):
            return False
        for t, r in zip(mapped.tensors, refs):
            if r[0] == "input" and t not in self.inputs:
                self.inputs.append(t)
                self.refs[t] = ("input", len(self.inputs) - 1)
        self.nodes.append((mapped.op, [self.refs[t] for t in mapped.tensors], mapped.attrs))
        self.made_by.append(node)
        self.refs[node] = ("node", len(self.nodes) - 1)
        return True

    def graph(self, outputs: list[torch.fx.Node]) -> Graph:
        n = len(self.inputs)
        number = {("input", k): k for k in range(n)} | {("node", j): n + j for j in range(len(self.nodes))}
        nodes = tuple(Node.make(op, [number[r] for r in refs], **attrs) for op, refs, attrs in self.nodes)
        specs = tuple(spec_of(program_value(self.values[t])) for t in self.inputs)
        return Graph(specs, nodes, tuple(number[self.refs[o]] for o in outputs))


def build_region(gm: torch.fx.GraphModule, values: dict) -> Region | None:
    """The mapped calls of one captured graph as a numfuzz program (see the module); None where nothing maps."""
    builder = _Builder(values)
    calls = {node: map_node(node) for node in gm.graph.nodes if node.op in ("call_function", "call_method")}
    kept: set[torch.fx.Node] = set()
    passed: set[torch.fx.Node] = set()  # the pass-throughs kept: their users are their source's
    cut: Counter = Counter()
    regions: list[str | None] = []  # the autocast regions the graph is in, innermost last
    for node in gm.graph.nodes:
        if node.target is _enter_autocast:  # the nodes inside carry the innermost region's dtype (None: autocast off there)
            regions.append(DTYPE_NAMES.get(node.args[1]) if node.args[2] else None)
            builder.autocast = regions[-1]
            continue
        if node.target is _exit_autocast:
            regions.pop()
            builder.autocast = regions[-1] if regions else None
            continue
        found = calls.get(node)
        if isinstance(found, PassThrough):  # the same values: the source's, or an input where the source is not mapped
            if found.source in builder.refs:
                builder.refs[node] = builder.refs[found.source]
                kept.add(node)
                passed.add(node)
        elif isinstance(found, Mapped) and builder.add(node, found):
            kept.add(node)
        elif node in calls:
            cut[call_name(node)] += 1
    used_outside = [n for n in builder.made_by if any(user not in kept for user in _users_through(n, passed))]
    if not used_outside:
        return None
    graph = builder.graph(list(dict.fromkeys(used_outside)))
    sample = [program_value(values[t]).detach().contiguous().clone() for t in builder.inputs]
    made = builder.made_by
    return Region(graph, [sample], [source_line(n) for n in made], [module_path(n) for n in made], coverage(list(gm.graph.nodes), calls), cut)


def _users_through(node: torch.fx.Node, passed: set[torch.fx.Node]) -> list[torch.fx.Node]:
    """Who uses a node's value, looking through the pass-throughs kept in the region (`passed`)."""
    users = []
    for user in node.users:
        users.extend(_users_through(user, passed) if user in passed else [user])
    return users


def extract_region(fn: Callable, args: tuple, kwargs: dict | None = None) -> Region | None:
    """The region of `fn`'s first captured graph with mapped calls (a module, the whole model)."""
    for gm, values in capture_values(fn, args, kwargs or {}):
        region = build_region(gm, values)
        if region is not None:
            return region
    return None
