"""Mutations of a program: the small edits a coverage-guided campaign makes to a parent that reached new compiler code.

Each mutation is drawn from an rng and gives a well-typed graph with the parent's inputs' recipes,
or None: swap an op for another of its family with the same attributes and input domains, change
an input's dtype, insert a cast after a value (to another float dtype) or drop one, scale a size
class of the inputs to a vector width or block size give or take one, lay an input out as a
strided view. `mutate` tries them until one applies. A case's lineage (its root seed and one seed
per mutation) rebuilds it exactly (`numfuzz.corpus.make`). Torch-free.
"""

from __future__ import annotations

import random
from typing import Callable

from numfuzz.program.dtypes import PROGRAM_DTYPES, is_integer
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.layout import draw_layout
from numfuzz.program.ops import OPS, OpSpec, infer_specs
from numfuzz.program.seams import CPU_WIDTHS, GPU_WIDTHS
from numfuzz.program.sizes import size_classes, with_input_shapes

Mutation = Callable[[Graph, random.Random, str, frozenset[str]], Graph | None]


def _checked(graph: Graph) -> Graph | None:
    try:
        infer_specs(graph)
    except (GraphError, IndexError, KeyError, TypeError, ValueError):
        return None
    return graph


def _same_kind(a: OpSpec, b: OpSpec) -> bool:
    """b can stand in a's place: one family, arity, attribute drawer, index argument, and no stricter input domain."""
    if a.name == b.name or (a.family, a.arity, a.draw_attrs, a.index_arg) != (b.family, b.arity, b.draw_attrs, b.index_arg):
        return False
    return all(b.domain(i) in ("any", a.domain(i)) for i in range(a.arity))


def swap_op(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    j = rng.randrange(len(graph.nodes))
    node = graph.nodes[j]
    if node.op not in OPS:
        return None
    kin = [spec for spec in OPS.values() if _same_kind(OPS[node.op], spec) and (not ops or spec.name in ops)]
    if not kin:
        return None
    swapped = Node(rng.choice(kin).name, node.args, node.attrs)
    return _checked(Graph(graph.inputs, graph.nodes[:j] + (swapped,) + graph.nodes[j + 1 :], graph.outputs))


def change_dtype(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    floats = [i for i, s in enumerate(graph.inputs) if not is_integer(s.dtype)]
    if not floats:
        return None
    i = rng.choice(floats)
    spec = graph.inputs[i]
    dtype = rng.choice([d for d in PROGRAM_DTYPES if d != spec.dtype])
    inputs = graph.inputs[:i] + (TensorSpec(spec.shape, dtype, spec.layout),) + graph.inputs[i + 1 :]
    return _checked(Graph(inputs, graph.nodes, graph.outputs))


def insert_cast(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    """A cast of value v to another float dtype, put right after v's definition, read by one of v's consumers."""
    specs = infer_specs(graph)
    n_in = len(graph.inputs)
    uses = [(j, k) for j, node in enumerate(graph.nodes) for k, a in enumerate(node.args) if not is_integer(specs[a].dtype)]
    if not uses or (ops and "cast" not in ops):
        return None
    j, k = rng.choice(uses)
    value = graph.nodes[j].args[k]
    dtype = rng.choice([d for d in PROGRAM_DTYPES if d != specs[value].dtype])
    at = max(value - n_in + 1, 0)  # the cast's position among the nodes

    def moved(v: int) -> int:
        return v + 1 if v >= n_in + at else v

    nodes = [Node(n.op, tuple(moved(a) for a in n.args), n.attrs) for n in graph.nodes]
    cast = n_in + at
    consumer = nodes[j]
    nodes[j] = Node(consumer.op, tuple(cast if i == k else a for i, a in enumerate(consumer.args)), consumer.attrs)
    nodes.insert(at, Node.make("cast", [value], dtype=dtype))
    return _checked(Graph(graph.inputs, tuple(nodes), tuple(moved(o) for o in graph.outputs)))


def drop_cast(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    """A cast's readers read its argument instead (the cast stays, unread, unless it is an output)."""
    casts = [j for j, node in enumerate(graph.nodes) if node.op == "cast"]
    if not casts:
        return None
    j = rng.choice(casts)
    value, source = len(graph.inputs) + j, graph.nodes[j].args[0]
    nodes = tuple(Node(n.op, tuple(source if a == value else a for a in n.args), n.attrs) for n in graph.nodes)
    return _checked(Graph(graph.inputs, nodes, graph.outputs))


def scale_shape(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    """Every input dim of one size to a vector width or block size, give or take one (a loop's body and its tail)."""
    classes = size_classes(graph)
    if not classes:
        return None
    size = rng.choice(sorted(classes))
    width = rng.choice(CPU_WIDTHS if widths == "cpu" else GPU_WIDTHS)
    new = max(width + rng.choice((-1, 0, 1)), 2)
    shapes = [list(spec.shape) for spec in graph.inputs]
    for i, d in classes[size]:
        shapes[i][d] = new
    resized = with_input_shapes(graph, [tuple(s) for s in shapes])
    if resized is None:
        return None
    return Graph(tuple(r.with_layout(None) for r in resized.inputs), graph.nodes, graph.outputs)  # layouts fit the old shape


def lay_out(graph: Graph, rng: random.Random, widths: str, ops: frozenset[str] = frozenset()) -> Graph | None:
    shaped = [i for i, s in enumerate(graph.inputs) if s.shape and not is_integer(s.dtype) and s.layout is None]
    if not shaped:
        return None
    i = rng.choice(shaped)
    inputs = graph.inputs[:i] + (graph.inputs[i].with_layout(draw_layout(rng, graph.inputs[i].shape)),) + graph.inputs[i + 1 :]
    return _checked(Graph(inputs, graph.nodes, graph.outputs))


MUTATIONS: dict[str, Mutation] = {
    "swap_op": swap_op,
    "dtype": change_dtype,
    "insert_cast": insert_cast,
    "drop_cast": drop_cast,
    "shape": scale_shape,
    "layout": lay_out,
}
WEIGHTS = {"swap_op": 4, "dtype": 2, "insert_cast": 2, "drop_cast": 1, "shape": 3, "layout": 1}


def mutate(graph: Graph, rng: random.Random, widths: str = "cpu", ops: frozenset[str] = frozenset(), tries: int = 12) -> tuple[Graph, str]:
    """One mutation of `graph` that applies, drawn from `rng`, and its name; the graph unchanged ("none") when none did.
    `ops`: the ops a campaign draws (`--ops`), which a swap or an inserted cast keeps to (empty: every op)."""
    names = list(MUTATIONS)
    for _ in range(tries):
        name = rng.choices(names, [WEIGHTS[n] for n in names])[0]
        mutated = MUTATIONS[name](graph, rng, widths, ops)
        if mutated is not None and mutated != graph:
            return mutated, name
    return graph, "none"
