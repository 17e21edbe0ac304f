"""How a case's symbolic sizes follow an edit: a candidate's second-size inputs and marked dims.

The second size (`corpus.case.SecondSize`) is the same program with its varying dims at other
sizes. An edit of the graph that keeps the inputs' shapes keeps the second size's inputs (pruned
and renumbered as the inputs are, rounded where a dtype changes); an edit that changes shapes or
adds inputs says what the second size's inputs become (`second_rows`). A candidate whose program
is not well typed at its second size, or no longer varies there, has none. Marked dims are the
dims that vary (a dim must stay >= 2: mark_dynamic on a size-1 dim gives a constant).
"""

from __future__ import annotations

import torch

from numfuzz.corpus.case import Case, SecondSize
from numfuzz.program.ir import Graph, TensorSpec
from numfuzz.program.sizes import varying_dims, with_input_shapes
from numfuzz.program.valid_inputs import into_range
from numfuzz.program.values import encode, round_to, torch_dtype
from numfuzz.run_spec import RunSpec

Samples = list[list[torch.Tensor]]


def carried(case: Case, edited: Graph, graph: Graph, kept: list[int], second_rows: Samples | None = None) -> tuple[RunSpec, SecondSize | None]:
    """The candidate's run specification (its marks) and second size.

    `edited` is the edited graph before normalising, `graph` after it, `kept` the old input each of
    `graph`'s inputs was; `second_rows` index like `edited`'s inputs (None: the case's own, when
    `edited` keeps its inputs' shapes)."""
    second, graph2 = None, None
    if case.second is not None:
        rows = second_rows
        if rows is None and [s.shape for s in edited.inputs] == [s.shape for s in case.graph.inputs]:
            rows = [[_as(t, spec.dtype) for t, spec in zip(row, edited.inputs)] for row in case.second_tensors()]
        if rows:
            rows = [[row[i] for i in kept] for row in rows]
            graph2 = with_input_shapes(graph, [tuple(t.shape) for t in rows[0]])
            fitted = [into_range(graph2, row) for row in rows] if graph2 is not None else []  # indices into the range of the ops left
            if graph2 is not None and _wide_varying(graph, graph2) and all(row is not None for row in fitted):
                second = SecondSize(tuple(s.shape for s in graph2.inputs), tuple(tuple(encode(t) for t in row) for row in fitted))
            else:
                graph2 = None
    run = case.run
    if run.dynamic == "marked":
        marks = varying_dims(graph, graph2) if graph2 is not None else _remapped(run.marked, kept, graph)
        run = run.with_changes(marked=tuple(marks)) if marks else run.with_changes(dynamic="static", marked=())
        second = second if marks else None
    return run, second


def _wide_varying(graph: Graph, graph2: Graph) -> bool:
    """Some dims vary between the two sizes, each of them >= 2 at both (a cut node's value, pooled at the second
    size, can vary down to 1: a size a compiler specialises, not a symbolic one)."""
    dims = varying_dims(graph, graph2)
    return bool(dims) and all(graph.inputs[i].shape[d] >= 2 and graph2.inputs[i].shape[d] >= 2 for i, d in dims)


def _as(t: torch.Tensor, dtype: str) -> torch.Tensor:
    """`t` in `dtype`, rounded once (as an edit that changes an input's dtype rounds the first size's values)."""
    return t if t.dtype == torch_dtype(dtype) else round_to(t.double().numpy(), TensorSpec(tuple(t.shape), dtype))


def _remapped(marked: tuple[tuple[int, int], ...], kept: list[int], graph: Graph) -> list[tuple[int, int]]:
    """Marks on the inputs that are left, renumbered; a dim that is gone or now of size 1 is dropped."""
    out = []
    for new, old in enumerate(kept):
        for i, d in marked:
            if i == old and d < len(graph.inputs[new].shape) and graph.inputs[new].shape[d] >= 2:
                out.append((new, d))
    return out


def varying(case: Case) -> set[tuple[int, int]]:
    """The (input, dim) pairs whose size differs at the second size (none without one)."""
    second = case.second_graph()
    return set(varying_dims(case.graph, second)) if second is not None else set()


def pinned(case: Case) -> set[tuple[int, int]]:
    """Dims a shape edit must keep at 2 or more: the marked ones and those that vary at the second size."""
    return set(case.run.marked) | varying(case)


def second_values(case: Case, values_fn) -> Samples | None:
    """Every input and node's eager values at the second size (as `values_fn` computes them at the first), or None without one."""
    graph = case.second_graph()
    if graph is None:
        return None
    return values_fn(graph, case.second_tensors())
