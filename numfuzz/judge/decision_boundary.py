"""An integer or bool output decided from floats (signbit, a comparison, argmax) that differs from eager's only where
those floats differ by rounding: the decision flipped at its boundary, amplified from a difference that is no finding.

The 2.15.0 campaign's `signbit(adaptive_avg_pool1d(atan2(y, x)))`: a window's mean of -pi/2 and pi/2 + 3e-8 is 0 in
eager and a tiny negative compiled (atan2 one ULP apart), and signbit tells them apart. The floats the deciding op
reads are judged as outputs of their own (the program with them as its outputs, compiled once more); where they are
no finding, and the target's differ from eager's at every element the decision differs at (elementwise ops) or
somewhere (a reduction's), the exact mismatch is amplified. Where they are bitwise eager's, the op itself decided
otherwise: a finding.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import ILL_CONDITIONED
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.facts import Analysis
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import is_integer
from numfuzz.program.graph_edit import with_outputs
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target


def _deciding_floats(graph: Graph, specs: list, outcome: Outcome) -> list[tuple[int, list[int]]] | None:
    """(output index, the float values its node reads) for each output that differs; None where one is no node's
    result on floats (an input, or an integer op on integers)."""
    first = len(graph.inputs)
    found = []
    for o in outcome.outputs:
        if o.verdict != Verdict.EXACT_MISMATCH.value or o.index >= len(graph.outputs):
            continue
        value = graph.outputs[o.index]
        floats = [a for a in graph.nodes[value - first].args if not is_integer(specs[a].dtype)] if value >= first else []
        if not floats:
            return None
        found.append((o.index, floats))
    return found or None


def _flipped_where_floats_differ(outcome: Outcome, floats_run: Outcome, graph: Graph, specs: list, decided: list[tuple[int, list[int]]]) -> bool:
    """At every element where the decision differs, one float it reads differs between the target and eager (where the
    op is elementwise, its output and those floats of one shape); else somewhere."""
    position = 0
    for index, floats in decided:
        eager, got = outcome.runs.flat("eager", index), outcome.runs.flat("target", index)
        flipped = eager != got
        moved = np.zeros_like(flipped)
        elementwise = all(specs[a].shape == specs[graph.outputs[index]].shape for a in floats)
        for k in range(position, position + len(floats)):
            apart = ~np.isclose(floats_run.runs.flat("eager", k), floats_run.runs.flat("target", k), rtol=0.0, atol=0.0, equal_nan=True)
            moved = moved | apart if elementwise else moved | bool(apart.any())
        position += len(floats)
        if not bool(np.all(moved[flipped])):
            return False
    return True


Judge = Callable[[Graph, list[list[torch.Tensor]], Target, str, Outcome, Bounds], Outcome]  # `judge.analysis.analyse`


def decided_at_a_boundary(
    graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome, bounds: Bounds, analyse: Judge
) -> Analysis | None:
    """The facts of an exact mismatch that the floats it is decided from explain (cause ill_conditioned), else None.
    `analyse` judges the floats as any program's outputs are (the analysis passes itself in)."""
    specs = infer_specs(graph)
    decided = _deciding_floats(graph, specs, outcome) if outcome.runs is not None else None
    if decided is None:
        return None
    floats = with_outputs(graph, [a for _, values in decided for a in values])
    floats_run = evaluate(floats, samples, target, device)
    if floats_run.runs is None or not floats_run.verdict.is_clean and not floats_run.verdict.is_accuracy:
        return None  # the floats' program did not run as the program did
    judged = analyse(floats, samples, target, device, floats_run, bounds)
    if judged.verdict.is_finding or not _flipped_where_floats_differ(outcome, floats_run, graph, specs, decided):
        return None
    index, values = decided[0]
    node = graph.nodes[graph.outputs[index] - len(graph.inputs)]
    why = judged.detail or judged.verdict.value
    evidence = f"`{node.op}` decides from floats the target gives {judged.verdict.value} against float64 ({why}), and differs only where they do"
    return Analysis(index, ILL_CONDITIONED.name, [evidence], node.op, specs[values[0]].dtype)
