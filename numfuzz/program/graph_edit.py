"""Structural edits of a Graph for the minimiser: cones, dead-code removal, rewiring. No torch."""

from __future__ import annotations

from numfuzz.program.ir import Graph, Node, TensorSpec


def cone(graph: Graph, value: int) -> list[int]:
    """Positions (in `graph.nodes`) of the nodes that `value` depends on, itself included, in order."""
    n_in = len(graph.inputs)
    needed, stack = set(), [value]
    while stack:
        v = stack.pop()
        k = v - n_in
        if k >= 0 and k not in needed:
            needed.add(k)
            stack.extend(graph.nodes[k].args)
    return sorted(needed)


def normalize(graph: Graph) -> tuple[Graph, list[int]]:
    """Drop nodes no output needs and inputs nothing uses; renumber.

    Returns the new graph and, for each of its inputs, the index of the old input it was.
    """
    n_in = len(graph.inputs)
    live_nodes: set[int] = set()
    for out in graph.outputs:
        live_nodes.update(cone(graph, out))
    used_inputs = {o for o in graph.outputs if o < n_in}
    for k in live_nodes:
        used_inputs.update(a for a in graph.nodes[k].args if a < n_in)
    kept_inputs = sorted(used_inputs)
    new_index = {old: new for new, old in enumerate(kept_inputs)}
    nodes = []
    for k, node in enumerate(graph.nodes):
        if k in live_nodes:
            nodes.append(Node(node.op, tuple(new_index[a] for a in node.args), node.attrs))
            new_index[n_in + k] = len(kept_inputs) + len(nodes) - 1
    inputs = tuple(graph.inputs[i] for i in kept_inputs)
    return Graph(inputs, tuple(nodes), tuple(new_index[o] for o in graph.outputs)), kept_inputs


def with_outputs(graph: Graph, outputs: list[int]) -> Graph:
    return Graph(graph.inputs, graph.nodes, tuple(outputs))


def replace_uses(graph: Graph, old: int, new: int) -> Graph:
    """Every use of value `old` (by nodes after it, and by outputs) reads `new` instead; `new` < `old`."""
    nodes = tuple(Node(n.op, tuple(new if a == old else a for a in n.args), n.attrs) for n in graph.nodes)
    return Graph(graph.inputs, nodes, tuple(new if o == old else o for o in graph.outputs))


def cut(graph: Graph, specs: list[TensorSpec], cut_nodes: set[int], extra_outputs: list[int] = ()) -> Graph:
    """Replace each node in `cut_nodes` by a new input of its spec (appended after the old inputs).

    Outputs that become inputs are dropped, because an input passed through tells nothing;
    `extra_outputs` (node positions) are added as outputs. `specs` are the old graph's value specs.
    """
    n_in = len(graph.inputs)
    order = sorted(cut_nodes)
    new_index = {i: i for i in range(n_in)}
    for j, k in enumerate(order):
        new_index[n_in + k] = n_in + j
    base = n_in + len(order)
    nodes = []
    for k, node in enumerate(graph.nodes):
        if k in cut_nodes:
            continue
        nodes.append(Node(node.op, tuple(new_index[a] for a in node.args), node.attrs))
        new_index[n_in + k] = base + len(nodes) - 1
    inputs = graph.inputs + tuple(specs[n_in + k] for k in order)
    outputs = [new_index[o] for o in graph.outputs if o >= n_in and (o - n_in) not in cut_nodes]
    for k in extra_outputs:
        if k not in cut_nodes and new_index[n_in + k] not in outputs:
            outputs.append(new_index[n_in + k])
    return Graph(inputs, tuple(nodes), tuple(outputs))


def index_after_cut(graph: Graph, cut_nodes: list[int], value: int) -> int:
    """Where `value` (a node not cut) lands in `cut`'s numbering."""
    n_in = len(graph.inputs)
    kept = [k for k in range(len(graph.nodes)) if k not in set(cut_nodes)]
    return n_in + len(cut_nodes) + kept.index(value - n_in)


def sinks(graph: Graph, among: set[int]) -> list[int]:
    """Nodes in `among` whose value no other node in `among` reads."""
    n_in = len(graph.inputs)
    read = {a - n_in for k in among for a in graph.nodes[k].args}
    return sorted(k for k in among if k not in read)


def side_by_side(graphs: list[Graph]) -> Graph:
    """Independent graphs as one: every graph's inputs in turn, then its nodes, then its outputs (a batch)."""
    n_inputs = sum(len(g.inputs) for g in graphs)
    inputs, nodes, outputs = [], [], []
    at_input, at_node = 0, n_inputs
    for g in graphs:
        n = len(g.inputs)

        def moved(value: int, n: int = n, at_input: int = at_input, at_node: int = at_node) -> int:
            return at_input + value if value < n else at_node + value - n

        inputs.extend(g.inputs)
        nodes.extend(Node(node.op, tuple(moved(a) for a in node.args), node.attrs) for node in g.nodes)
        outputs.extend(moved(o) for o in g.outputs)
        at_input, at_node = at_input + n, at_node + len(g.nodes)
    return Graph(tuple(inputs), tuple(nodes), tuple(outputs))
