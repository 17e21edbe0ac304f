"""What an input's values must satisfy beyond their dtype and shape, checked where a case loads and kept where the minimiser edits them.

* An integer input (class targets, indices) holds values in [0, bound), or a node's `ignore_index`,
  for every op that reads it (`ops.index_ranges`).
* An input expanded with stride 0 along a dim holds equal values along it (`layout.conform`).
"""

from __future__ import annotations

import torch

from numfuzz.program.ir import Graph
from numfuzz.program.ops import index_ranges, infer_specs
from numfuzz.program.values import fits_layout

Sample = list[torch.Tensor]


def input_problem(graph: Graph, sample: Sample) -> str | None:
    """Why the sample's values do not fit the graph's inputs (one line), or None when they do."""
    for i, (x, spec) in enumerate(zip(sample, graph.inputs)):
        if not fits_layout(x, spec):
            return f"input x{i}'s values differ along dim {list(spec.layout.expand)}, which its layout expands with stride 0"
    for i, (bound, extra) in index_ranges(graph, infer_specs(graph)).items():
        bad = _outside(sample[i], bound, extra)
        if bad.any():
            return f"input x{i} holds index {int(sample[i][bad].reshape(-1)[0])}, outside [0, {bound}) of the ops that read it"
    return None


def into_range(graph: Graph, sample: Sample) -> Sample | None:
    """The sample with every index taken modulo its bound (so a shrunk dim keeps valid indices); None when a bound is 0."""
    ranges = index_ranges(graph, infer_specs(graph))
    out = list(sample)
    for i, (bound, extra) in ranges.items():
        if bound < 1:
            return None
        x = out[i]
        out[i] = torch.where(_outside(x, bound, extra), x.remainder(bound), x)
    return out


def _outside(x: torch.Tensor, bound: int, extra: frozenset[int]) -> torch.Tensor:
    bad = (x < 0) | (x >= bound)
    for value in extra:
        bad &= x != value
    return bad
