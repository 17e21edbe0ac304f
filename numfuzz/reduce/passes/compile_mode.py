"""Passes over how a case compiles: its options toward the default, its sizes toward static, its second size's samples.

A finding keeps only the compiler options it needs, and a symbolic size only where it needs one:
a finding that shows with static sizes and the default options is filed as such.
"""

from __future__ import annotations

from numfuzz.corpus.case import Case, SecondSize
from numfuzz.corpus.size_order import smaller
from numfuzz.program.ir import Graph
from numfuzz.program.sizes import varying_dims, with_input_shapes
from numfuzz.program.valid_inputs import into_range
from numfuzz.program.values import encode
from numfuzz.reduce.ddmin import ddmin
from numfuzz.reduce.dynamic_edit import varying
from numfuzz.reduce.shrinker import Candidates


def with_options(case: Case, keep: list[int]) -> Case | None:
    """The case with only the compiler options at these positions of its run's."""
    options = tuple(case.run.compiler_options[k] for k in keep if k < len(case.run.compiler_options))
    return _with(case, case.run.with_changes(compiler_options=options), case.second)


def static(case: Case) -> Case:
    """The case with static sizes: no marks, no second size."""
    return _with(case, case.run.with_changes(dynamic="static", marked=()), None)


def without_second(case: Case) -> Case | None:
    """A dynamic (dynamic=True) case without its second-size check; None where that is not one (an automatic
    case without one is a static compile, which `static` tried)."""
    return _with(case, case.run, None) if case.run.dynamic == "dynamic" and case.second is not None else None


def fewer_marked(case: Case, sizes: list[int]) -> Case | None:
    """A marked case whose dims of these first-size sizes no longer vary (their second size is the first's)."""
    second = case.second_graph()
    if case.run.dynamic != "marked" or second is None:
        return None
    shapes = [list(s.shape) for s in second.inputs]
    for i, d in varying_dims(case.graph, second):
        if case.graph.inputs[i].shape[d] in sizes:
            shapes[i][d] = case.graph.inputs[i].shape[d]
    graph2 = with_input_shapes(case.graph, [tuple(s) for s in shapes])
    if graph2 is None:
        return None
    dims = varying_dims(case.graph, graph2)
    if not dims:
        return static(case)
    rows = case.second_tensors()
    cut = [[t[tuple(slice(0, n) for n in spec.shape)] for t, spec in zip(row, graph2.inputs)] for row in rows]
    if any(tuple(t.shape) != spec.shape for row in cut for t, spec in zip(row, graph2.inputs)):
        return None  # a dim that grows back to its first size has no values to keep
    second = _second(graph2, cut)
    return _with(case, case.run.with_changes(marked=tuple(dims)), second) if second is not None else None


def smaller_second(case: Case, first: int, size: int) -> Case | None:
    """The dims of first-size `first` that vary, at second size `size` (smaller than now), their values cut to it."""
    second = case.second_graph()
    if second is None:
        return None
    shapes = [list(s.shape) for s in second.inputs]
    moved = [(i, d) for i, d in varying_dims(case.graph, second) if case.graph.inputs[i].shape[d] == first]
    if not moved or size < 2 or size == first or any(shapes[i][d] <= size for i, d in moved):
        return None
    for i, d in moved:
        shapes[i][d] = size
    graph2 = with_input_shapes(case.graph, [tuple(s) for s in shapes])
    if graph2 is None:
        return None
    rows = [[t[tuple(slice(0, n) for n in spec.shape)] for t, spec in zip(row, graph2.inputs)] for row in case.second_tensors()]
    second = _second(graph2, rows)
    return _with(case, case.run, second) if second is not None else None


def _second(graph2: Graph, rows: list[list]) -> SecondSize | None:
    """The second size of these rows, each index taken into the range of the ops that read it at those sizes (None: a bound is 0)."""
    fitted = [into_range(graph2, row) for row in rows]
    if any(row is None for row in fitted):
        return None
    return SecondSize(tuple(s.shape for s in graph2.inputs), tuple(tuple(_bits(t) for t in row) for row in fitted))


def keep_second_samples(case: Case, keep: list[int]) -> Case | None:
    if case.second is None or not keep:
        return None
    rows = tuple(case.second.samples[k] for k in keep if k < len(case.second.samples))
    return _with(case, case.run, SecondSize(case.second.shapes, rows))


def _bits(t) -> str:
    return encode(t.contiguous())


def _with(case: Case, run, second: SecondSize | None) -> Case:
    return Case(case.graph, case.samples, run, case.recipes, case.provenance, case.result, case.extra, case.grads, second)


class CompileMode:
    """One intra-op thread; options toward the default (all at once, then delta debugging); sizes toward static; fewer marked
    dims; no second size."""

    name = "compile-mode"

    def candidates(self, case: Case) -> Candidates:
        current = case
        if current.run.threads > 1:  # one thread, stated (0 would be whatever the replaying process has)
            candidate = smaller(_with(current, current.run.with_changes(threads=1), current.second), current)
            if candidate is not None and (yield candidate):
                current = candidate
        if current.run.compiler_options:
            candidate = smaller(with_options(current, []), current)
            if candidate is not None and (yield candidate):
                current = candidate
            else:
                current = yield from ddmin(current, lambda c: len(c.run.compiler_options), with_options)
        if current.run.dynamic == "static":
            return
        candidate = smaller(static(current), current)
        if candidate is not None and (yield candidate):
            return
        if current.run.dynamic == "marked" and current.second is not None:
            sizes = sorted({current.graph.inputs[i].shape[d] for i, d in current.run.marked})
            for n in sizes if len(sizes) > 1 else ():
                candidate = smaller(fewer_marked(current, [n]), current)
                if candidate is not None and (yield candidate):
                    current = candidate
        candidate = smaller(without_second(current), current)
        if candidate is not None and (yield candidate):
            return
        if current.second is not None and len(current.second.samples) > 1:
            current = yield from ddmin(current, lambda c: len(c.second.samples) if c.second is not None else 0, keep_second_samples)
        for first in sorted({current.graph.inputs[i].shape[d] for i, d in varying(current)}):
            for size in sorted({2, 3, first - 1, first + 1}):  # the smallest second size that still shows it
                candidate = smaller(smaller_second(current, first, size), current)
                if candidate is not None and (yield candidate):
                    current = candidate
                    break
