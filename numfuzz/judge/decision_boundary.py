"""An integer or bool output decided from floats (signbit, a comparison, argmax) that differs from eager's only where
those floats differ by rounding: the decision flipped at its boundary, amplified from a difference that is no finding.

The 2.15.0 campaign's `signbit(adaptive_avg_pool1d(atan2(y, x)))`: a window's mean of -pi/2 and pi/2 + 3e-8 is 0 in
eager and a tiny negative compiled (atan2 one ULP apart), and signbit tells them apart. The floats the deciding op
reads are judged as outputs of their own (the program with them as its outputs, compiled once more); where they are
no finding, and the target's differ from eager's at every element the decision differs at (elementwise ops) or
somewhere (a reduction's), the exact mismatch is amplified. A NaN of the other sign differs too: its sign is no
class (pytorch#189808), and signbit reads it (Thunder main's signbit of acosh(0) @ 0, a NaN whose sign bit the compiled
matmul sets). Floats that are non-finite everywhere leave the oracle nothing to judge (no finite reference): where
eager and the target give the reference's class at every element, they are no finding either. Where they are bitwise eager's, the op itself decided otherwise: a finding.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import ILL_CONDITIONED
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.facts import Analysis
from numfuzz.judge.nonfinite_class import FINITE, classes
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


def _nan_signs_apart(eager: np.ndarray, target: np.ndarray) -> np.ndarray:
    """NaNs on both sides with different sign bits: a difference that is no class (pytorch#189808), and signbit reads it."""
    return np.isnan(eager) & np.isnan(target) & (np.signbit(eager) != np.signbit(target))


def _nonfinite_classes_agree(floats_run: Outcome) -> bool:
    """The floats' program has no finite reference (invalid, nothing for the oracle to judge), and eager and the target
    give the reference's class at every element: NaN where it is NaN, whatever the sign, and its infinities."""
    runs = floats_run.runs
    if runs is None or not runs.reference:
        return False
    for k in range(len(runs.reference[0])):
        reference = classes(runs.flat("reference", k))
        if np.any(reference == FINITE) or np.any(classes(runs.flat("eager", k)) != reference) or np.any(classes(runs.flat("target", k)) != reference):
            return False
    return True


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
            e, t = floats_run.runs.flat("eager", k), floats_run.runs.flat("target", k)
            apart = ~np.isclose(e, t, rtol=0.0, atol=0.0, equal_nan=True) | _nan_signs_apart(e, t)
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
    nonfinite = floats_run.verdict is Verdict.INVALID and _nonfinite_classes_agree(floats_run)
    if floats_run.runs is None or not floats_run.verdict.is_clean and not floats_run.verdict.is_accuracy and not nonfinite:
        return None  # the floats' program did not run as the program did
    judged = floats_run if nonfinite else analyse(floats, samples, target, device, floats_run, bounds)
    if judged.verdict.is_finding or not _flipped_where_floats_differ(outcome, floats_run, graph, specs, decided):
        return None
    index, values = decided[0]
    node = graph.nodes[graph.outputs[index] - len(graph.inputs)]
    if nonfinite:
        evidence = f"`{node.op}` decides from floats that are non-finite everywhere, of one class on every side (a NaN's sign is no class, pytorch#189808), and differs only where they differ"
        return Analysis(index, ILL_CONDITIONED.name, [evidence], node.op, specs[values[0]].dtype)
    why = judged.detail or judged.verdict.value
    evidence = f"`{node.op}` decides from floats the target gives {judged.verdict.value} against float64 ({why}), and differs only where they do"
    return Analysis(index, ILL_CONDITIONED.name, [evidence], node.op, specs[values[0]].dtype)
