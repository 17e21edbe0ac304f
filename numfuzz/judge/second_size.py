"""The second-size check of a dynamic compile: the same compiled program run at other sizes of its varying dims.

A program compiled with symbolic sizes must compute right at every size its guards admit. After
the first size is judged, the very same compiled callable runs the case's second-size samples
(`corpus.case.SecondSize`), and the verdict rule judges them as it judges any samples. The
target's compile count before and after says whether that was the same program or a recompile
(a guard failed); a recompile is recorded, not hidden. A difference seen only there is a finding
of its own kind: its outcome has `at = "second_size"`, and its signature says so.
"""

from __future__ import annotations

import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import OWN_MARK, Outcome, judge
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph

SECOND_SIZE = "second_size"


def judge_second_size(program: CompiledProgram, graph: Graph, samples: list[list[torch.Tensor]]) -> Outcome:
    """Run `program` (compiled, and run at its first size already) at `graph`'s sizes and judge it there.

    The outcome is the second size's, with `at` set and `second_size` saying what was seen."""
    before = program.compiles()
    view = program.at_size(graph)
    outcome = judge(view, samples)
    after = program.compiles()
    recompiled = None if before is None or after is None else after > before
    outcome.at = SECOND_SIZE
    outcome.second_size = {
        "verdict": outcome.verdict.value,
        "shapes": [list(s.shape) for s in graph.inputs],
        "first_shapes": [list(s.shape) for s in program.graph.inputs],
        "recompiled": recompiled,
    }
    if recompiled:
        note = "the second size recompiled (a guard on the first size's sizes failed), so this is not the first compile's code"
        outcome.detail = f"{outcome.detail}; {note}" if outcome.detail else note
    return outcome


def second_size_note(outcome: Outcome) -> dict:
    """What a clean second-size check leaves on the first size's outcome: its verdict, shapes and recompile, and
    whether numfuzz's own mark made it invalid (`execute.own_error`)."""
    note = dict(outcome.second_size or {}, verdict=outcome.verdict.value)
    if outcome.verdict is Verdict.INVALID and outcome.detail.startswith(OWN_MARK):
        note["own_mark"] = True
    return note
