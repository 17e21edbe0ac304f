"""The second call of a compiled program: at other sizes of its varying dims, or with other values of its scalar arguments.

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
from numfuzz.judge.execute import OWN_MARK, SECOND_CALL, SECOND_SIZE, Outcome, judge
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph
from numfuzz.program.scalars import parameters, second_call


def judge_second_size(program: CompiledProgram, graph: Graph, samples: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]] | None = None) -> Outcome:
    """Run `program` (compiled, and run at its first size already) at `graph`'s sizes and scalars, and judge it there
    (with gradients, for the `upstream` gradients of each sample).

    The outcome is the second call's, with `at` set and `second_size` saying what was seen: the shapes,
    whether it recompiled, the scalars that changed, and which of them the compiled result reused."""
    before = program.compiles()
    view = program.at_size(graph)
    outcome = judge(view, samples, upstream=upstream)
    after = program.compiles()
    outcome = noted_second_call(outcome, program.graph, graph, None if before is None or after is None else after > before)
    changed = outcome.second_size.get("scalars")
    if changed and outcome.verdict.is_finding and outcome.verdict.is_accuracy and reuses_first_scalars(program, view, graph, samples):
        outcome.second_size["stale_scalars"] = [name for name, _, _ in changed]
    return outcome


def noted_second_call(outcome: Outcome, first: Graph, graph: Graph, recompiled: bool | None) -> Outcome:
    """The second call's outcome with what was seen there: `at`, the shapes, the recompile, the scalars that changed."""
    shapes, first_shapes = [list(s.shape) for s in graph.inputs], [list(s.shape) for s in first.inputs]
    outcome.at = SECOND_SIZE if shapes != first_shapes else SECOND_CALL
    outcome.second_size = {"verdict": outcome.verdict.value, "shapes": shapes, "first_shapes": first_shapes, "recompiled": recompiled}
    changed = [[name, a, b] for (name, a), (_, b) in zip(parameters(first), parameters(graph)) if _differ(a, b)]
    if changed:  # the scalar arguments of the second call (name, first value, second value)
        outcome.second_size["scalars"] = changed
    if recompiled:
        note = "the second call recompiled (a guard on the first call failed), so this is not the first compile's code"
        outcome.detail = f"{outcome.detail}; {note}" if outcome.detail else note
    return outcome


def _differ(a: object, b: object) -> bool:
    return a != b or repr(a) != repr(b)  # -0.0 and 0.0, 2 and 2.0 are other arguments


def reuses_first_scalars(program: CompiledProgram, view: CompiledProgram, graph: Graph, samples: list[list[torch.Tensor]]) -> bool:
    """Whether the compiled result of the second call is what eager gives with the first call's scalars: wherever
    it parts from eager with the second call's, it is nearer eager with the first's (a stale specialised scalar)."""
    with_first = program.at_size(second_call(graph))  # swapped back: the second call's shapes, the first call's scalars
    parted = False
    for sample in samples:
        inputs = view.on_device(sample)
        try:
            got, now, then = view.run(inputs), view.eager(inputs), with_first.eager(inputs)
        except Exception:  # the analysis, not this check, reports what a run raises
            return False
        for g, e2, e1 in zip(got, now, then):
            g, e2, e1 = (t.detach().to("cpu", torch.float64).nan_to_num(0.0, 1e300, -1e300) for t in (g, e2, e1))
            apart = g != e2
            if apart.any():
                parted = True
                if not bool(((g - e1).abs() < (g - e2).abs())[apart].all()):
                    return False
    return parted


def second_size_note(outcome: Outcome) -> dict:
    """What a clean second-size check leaves on the first size's outcome: its verdict, shapes and recompile, and
    whether numfuzz's own mark made it invalid (`execute.own_error`)."""
    note = dict(outcome.second_size or {}, verdict=outcome.verdict.value)
    if outcome.verdict is Verdict.INVALID and outcome.detail.startswith(OWN_MARK):
        note["own_mark"] = True
    return note
