"""Second sizes for dynamic compiles: the same program with some input dims at other sizes. Torch-free.

A dynamic compile is checked again at a second size without recompiling, so the second graph
must be the very same program: the same nodes and attributes (so the same lowered source), its
inputs with other sizes in the dims that vary, and well typed. Dims vary by *size class*: every
input dim of one size changes together, as Dynamo's duck sizing gives every dim of one size one
symbol (changing one alone would be a guard failure, a recompile). Size-1 dims never vary
(Dynamo specialises them: mark_dynamic on one would give a constant), nor become 1.
"""

from __future__ import annotations

import random

from numfuzz.program.ir import Graph, GraphError, TensorSpec
from numfuzz.program.ops import infer_specs

MAX_ELEMENTS = 4096  # per value, as the generator allows
Dim = tuple[int, int]  # (input, dim)


def with_input_shapes(graph: Graph, shapes: list[tuple[int, ...]] | tuple[tuple[int, ...], ...]) -> Graph | None:
    """The same nodes on inputs of these shapes (dtypes kept), or None when that is not a well-typed program of bounded size."""
    if len(shapes) != len(graph.inputs):
        return None
    try:
        inputs = tuple(TensorSpec(tuple(shape), spec.dtype) for shape, spec in zip(shapes, graph.inputs))
        resized = Graph(inputs, graph.nodes, graph.outputs)
        specs = infer_specs(resized)
    except (GraphError, IndexError, KeyError, TypeError, ValueError):  # some shape rules trip on odd shapes
        return None
    if any(s.numel == 0 or s.numel > MAX_ELEMENTS for s in specs):
        return None
    return resized


def size_classes(graph: Graph) -> dict[int, list[Dim]]:
    """Input dims of size >= 2, by size: the dims that vary together."""
    classes: dict[int, list[Dim]] = {}
    for i, spec in enumerate(graph.inputs):
        for d, n in enumerate(spec.shape):
            if n >= 2:
                classes.setdefault(n, []).append((i, d))
    return classes


def varying_dims(first: Graph, second: Graph) -> list[Dim]:
    """The input dims whose size differs between the two graphs."""
    return [(i, d) for i, (a, b) in enumerate(zip(first.inputs, second.inputs)) for d, (x, y) in enumerate(zip(a.shape, b.shape)) if x != y]


def _candidates(n: int, taken: set[int], rng: random.Random) -> list[int]:
    """Other sizes for a class of size n: near it and past it, odd ones first (tails of vector loops)."""
    near = [n + 1, n + 2, n + 3, n - 1, 2 * n + 1, 2 * n - 1, n + 7, 3 * n + 1, n // 2 + 1]
    sizes = [m for m in dict.fromkeys(near) if m >= 2 and m != n and m not in taken]
    rng.shuffle(sizes)
    sizes.sort(key=lambda m: m % 2 == 0)  # a stable sort: shuffled, odd ones first
    return sizes[:4]


def _resize(graph: Graph, changes: dict[int, int], dims: list[Dim]) -> Graph | None:
    shapes = [list(spec.shape) for spec in graph.inputs]
    for i, d in dims:
        shapes[i][d] = changes[graph.inputs[i].shape[d]]
    return with_input_shapes(graph, [tuple(s) for s in shapes])


def draw_second_size(graph: Graph, rng: random.Random, classes_wanted: int | None = None) -> tuple[Graph, list[Dim]] | None:
    """A second graph with some size classes changed, and the dims that vary; None when no class can change.

    `classes_wanted` None: every class that can change does (dynamic=True: every dim is symbolic);
    a number: at most that many classes (the dims to mark dynamic).
    """
    classes = size_classes(graph)
    order = list(classes)
    rng.shuffle(order)
    taken = set(classes)
    changes: dict[int, int] = {}
    dims: list[Dim] = []
    second = None
    for n in order:
        if classes_wanted is not None and len(changes) >= classes_wanted:
            break
        for m in _candidates(n, taken | set(changes.values()), rng):
            trial = _resize(graph, {**changes, n: m}, dims + classes[n])
            if trial is not None:
                changes[n], second = m, trial
                dims += classes[n]
                break
    return (second, sorted(dims)) if second is not None else None
