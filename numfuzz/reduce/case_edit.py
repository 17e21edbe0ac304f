"""Edits of a whole Case (graph and exact input values) that the minimiser's passes propose.

Every function returns a new, well-typed Case, or None when the edit does not make one.
Input values are edited in float64 and rounded back to each input's dtype. An input keeps its
layout where the edit leaves it meaningful; indices are taken modulo their bound where a
shrunk dim leaves them out of range (`program.valid_inputs`). A case's second size and marked
dims follow each edit (`reduce.dynamic_edit`); a marked or varying dim stays >= 2.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np
import torch

from numfuzz.corpus.case import Case
from numfuzz.program.graph_edit import cut, normalize
from numfuzz.program.ir import Graph, GraphError, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.valid_inputs import into_range
from numfuzz.program.values import bit_view, fits_layout, round_to, torch_dtype
from numfuzz.reduce.dynamic_edit import carried, pinned, second_values, varying

Samples = list[list[torch.Tensor]]


def rebuild(case: Case, graph: Graph, samples: Samples, second_rows: Samples | None = None) -> Case | None:
    """A candidate from an edited graph and per-sample inputs: normalised, type-checked; `second_rows`:
    the second size's inputs, where the edit changed the inputs' shapes or added inputs."""
    edited = graph
    try:
        graph, kept = normalize(graph)
        infer_specs(graph)
    except (GraphError, IndexError, KeyError, TypeError):  # some shape rules trip on a rank-0 input
        return None
    rows = [[sample[i] for i in kept] for sample in samples]
    for row in rows:
        for tensor, spec in zip(row, graph.inputs):
            if tuple(tensor.shape) != spec.shape or tensor.dtype != torch_dtype(spec.dtype) or not fits_layout(tensor, spec):
                return None
    rows = [into_range(graph, row) for row in rows]
    if not rows or any(row is None for row in rows):
        return None
    run, second = carried(case, edited, graph, kept, second_rows)
    return Case.from_tensors(graph, rows, run, _upstream(case, graph, len(rows)), provenance=case.provenance, extra=case.extra, second=second)


def _upstream(case: Case, graph: Graph, samples: int) -> Samples | None:
    """The candidate's upstream gradients: the case's own while its outputs and samples stay as they are, else ones.

    Ones are the simplest upstream gradient (the gradient of the outputs' sum); the candidate must
    still show the finding with them, or the shrinker does not keep it.
    """
    if not case.run.grad:
        return None
    before, after = infer_specs(case.graph), infer_specs(graph)
    if samples == len(case.grads) and [before[o] for o in case.graph.outputs] == [after[o] for o in graph.outputs]:
        return case.grad_tensors()
    return [[torch.ones(after[o].shape, dtype=torch_dtype(after[o].dtype)) for o in graph.outputs] for _ in range(samples)]


def float64_inputs(case: Case) -> list[list[np.ndarray]]:
    return [[t.to(torch.float64).numpy() for t in sample] for sample in case.tensors()]


def all_values(case: Case) -> Samples:
    """Eager values of every input and node, per sample, on the CPU: what a cut node is replaced by."""
    return values_of(case.graph, case.tensors())


def all_second_values(case: Case) -> Samples | None:
    """As `all_values`, at the case's second size (None without one)."""
    return second_values(case, values_of)


def values_of(g: Graph, samples: Samples) -> Samples:
    probe = Graph(g.inputs, g.nodes, tuple(range(len(g.inputs), g.n_values)))
    fn = compile_source(lower(probe))
    rows = []
    with torch.no_grad():
        for sample in samples:
            rows.append(list(sample) + [t.detach().clone() for t in fn(*sample)])
    return rows


def cut_nodes(case: Case, values: Samples, cut_set: set[int], extra_outputs: list[int] = (), second: Samples | None = None) -> Case | None:
    """Replace the nodes in `cut_set` by new inputs that hold their eager values (`second`: the values at the second size)."""
    g = case.graph
    try:
        specs = infer_specs(g)
        graph = cut(g, specs, cut_set, list(extra_outputs))
    except GraphError:
        return None
    n_in = len(g.inputs)
    rows = [row[:n_in] + [row[n_in + k] for k in sorted(cut_set)] for row in values]
    second_rows = [row[:n_in] + [row[n_in + k] for k in sorted(cut_set)] for row in second] if second else None
    return rebuild(case, graph, rows, second_rows)


def keep_samples(case: Case, indices: list[int]) -> Case | None:
    rows = case.tensors()
    return rebuild(case, case.graph, [rows[i] for i in indices])


def stack_samples(case: Case) -> Case | None:
    """One sample holding all of them along a new leading dim (inputs equal in every sample stay as they are)."""
    rows = case.tensors()
    if len(rows) < 2 or case.second is not None:  # the second size's samples could not stack alike
        return None
    merged, inputs = [], []
    for i, spec in enumerate(case.graph.inputs):
        column = [row[i] for row in rows]
        if all(torch.equal(c.view(bit_view(spec.dtype)), column[0].view(bit_view(spec.dtype))) for c in column):
            merged.append(column[0])
            inputs.append(spec)
        else:
            merged.append(torch.stack(column))
            layout = spec.layout.with_leading_dim(len(spec.shape)) if spec.layout is not None else None
            inputs.append(TensorSpec((len(rows),) + spec.shape, spec.dtype, layout))
    return rebuild(case, Graph(tuple(inputs), case.graph.nodes, case.graph.outputs), [merged])


def select(case: Case, members: list[tuple[int, int]], indices: list[int]) -> Case | None:
    """Keep only `indices` along dim `d` of input `i`, for every (i, d) in `members`."""
    index = torch.tensor(indices, dtype=torch.long)
    inputs = list(case.graph.inputs)
    keep_wide, moves = pinned(case), varying(case)
    for i, d in members:
        if i >= len(inputs) or d >= len(inputs[i].shape) or not indices or max(indices) >= inputs[i].shape[d]:
            return None
        if (i, d) in keep_wide and len(indices) < 2:
            return None
    for i, d in members:
        shape = list(inputs[i].shape)
        shape[d] = len(indices)
        inputs[i] = TensorSpec(tuple(shape), inputs[i].dtype, inputs[i].layout)

    def selected(samples: Samples, dims: list[tuple[int, int]]) -> Samples:
        rows = []
        for sample in samples:
            row = list(sample)
            for i, d in dims:
                row[i] = torch.index_select(row[i], d, index)
            rows.append(row)
        return rows

    second = selected(case.second_tensors(), [m for m in members if m not in moves]) if case.second is not None else None
    return rebuild(case, Graph(tuple(inputs), case.graph.nodes, case.graph.outputs), selected(case.tensors(), members), second)


def reshape_inputs(case: Case, shapes: dict[int, tuple[int, ...]]) -> Case | None:
    """Inputs reshaped (size-1 dims dropped, or flattened); at the second size alike."""
    inputs = list(case.graph.inputs)
    for i, shape in shapes.items():
        if i >= len(inputs) or math.prod(shape) != inputs[i].numel:
            return None
        if case.second is None and any(m == i for m, _ in case.run.marked):
            return None  # marks without a second size cannot follow a change of rank
        inputs[i] = TensorSpec(tuple(shape), inputs[i].dtype, _reshaped_layout(inputs[i], tuple(shape)))
    rows = [[t.reshape(inputs[i].shape) for i, t in enumerate(sample)] for sample in case.tensors()]
    second = None
    if case.second is not None:
        old = [s.shape for s in case.graph.inputs]
        new_shapes = [_alike(old[i], inputs[i].shape, s) for i, s in enumerate(case.second.shapes)]
        if any(s is None for s in new_shapes):
            return None
        second = [[t.reshape(new_shapes[i]) for i, t in enumerate(row)] for row in case.second_tensors()]
    return rebuild(case, Graph(tuple(inputs), case.graph.nodes, case.graph.outputs), rows, second)


def _alike(old: tuple[int, ...], new: tuple[int, ...], second: tuple[int, ...]) -> tuple[int, ...] | None:
    """The second size's shape reshaped as `old` became `new`: flattened, or the same size-1 dims dropped."""
    if new == old:
        return second
    if len(new) == 1:
        return (math.prod(second),)
    kept, j = [], 0
    for pos, n in enumerate(old):
        if j < len(new) and new[j] == n:
            kept.append(pos)
            j += 1
        elif n != 1:
            return None
    return tuple(second[pos] for pos in kept) if j == len(new) else None


def _reshaped_layout(spec: TensorSpec, shape: tuple[int, ...]):
    """The layout after a reshape: kept where only size-1 dims go, else plain (a reshape has no strides to keep)."""
    if spec.layout is None:
        return None
    ones = [d for d, n in enumerate(spec.shape) if n == 1]
    for k in range(len(ones) + 1):  # which size-1 dims go: any that leave the new shape
        for gone in itertools.combinations(ones, k):
            if tuple(n for d, n in enumerate(spec.shape) if d not in gone) == shape:
                return spec.layout.without_dims(set(gone), len(spec.shape))
    return None


def map_inputs(case: Case, fn: Callable[[int, np.ndarray, TensorSpec], np.ndarray | None], dtypes: dict[int, str] | None = None) -> Case | None:
    """New values `fn(input index, float64 values, new spec)` for every input (None leaves one as it is);
    optionally new dtypes. The new values must be exactly representable in the (new) dtype, else no candidate.
    """
    inputs = [TensorSpec(s.shape, (dtypes or {}).get(i, s.dtype), s.layout) for i, s in enumerate(case.graph.inputs)]
    rows = []
    for sample in float64_inputs(case):
        row = []
        for i, (x, spec) in enumerate(zip(sample, inputs)):
            y = fn(i, x, spec)
            y = x if y is None else np.asarray(y, dtype=np.float64).reshape(spec.shape)
            t = round_to(y, spec)
            if not _same_float(t.to(torch.float64).numpy(), y):
                return None
            row.append(t)
        rows.append(row)
    return rebuild(case, Graph(tuple(inputs), case.graph.nodes, case.graph.outputs), rows)


def _same_float(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
