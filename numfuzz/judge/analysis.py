"""The analysis of an accuracy finding: where the difference starts and why, or that it is only amplified.

Run on every less_accurate or nonfinite outcome (in a campaign's worker, on replay, on the
minimised case). It costs at most two compiles: the probe that exposes the cone's values
(skipped when the flagged output's cone is one op, or when a dropped cast explains the case)
and the sweep of the cancellation test. Its result is stored in `Outcome.analysis`:

    {"output": k, "culprit": {...}, "cause": "...", "evidence": [...], "op": "...", "dtype": "...",
     "backward_error": {...}}

`op` and `dtype` are what the finding is filed under: the culprit op, or the cast a dropped
cast names. An outcome whose difference is only amplified becomes `amplified`, not a finding.
A less accurate outcome whose culprit value is within the op's documented bound
(`judge.backward_error`, `judge.bounds`) becomes `within_rounding`, not a finding, unless its
cause is one that stays a finding whatever the bound (`judge.rounding`). So does a non-finite one
whose culprit is within its bound where the exact rest of the program makes the same non-finite
elements from the target's culprit value (`judge.nonfinite_rest`), and a non-finite sum or
product that eager makes too from the same terms in another order (`judge.reduction_order`).
A `position_dependent` outcome whose two positions first part at an op within its bound at
both is `within_rounding` too (`judge.position_analysis`).
"""

from __future__ import annotations

import torch

from numfuzz.judge.backward_analysis import analyse_backward
from numfuzz.judge.backward_error import measure
from numfuzz.judge.backward_error_text import describe
from numfuzz.judge.bounds import active_bounds
from numfuzz.judge.causes import Diagnosis, Evidence, cast_dropped, diagnose
from numfuzz.judge.execute import Outcome
from numfuzz.judge.localize import Probe, flagged_index, locate_by_cutting, locate_culprit, probe_reproduces, run_probe, single_op_culprit
from numfuzz.judge.nonfinite_rest import rest_makes_it_nonfinite
from numfuzz.judge.position_analysis import positions_within_bounds
from numfuzz.judge.reduction_order import reordered_is_nonfinite
from numfuzz.judge.rounding import KEPT, NONFINITE_REST, REORDERED, within_rounding
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.targets import Target

ANALYSED = (Verdict.LESS_ACCURATE, Verdict.NONFINITE)


def analyse(
    graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome, upstream: list[list[torch.Tensor]] | None = None
) -> Outcome:
    """Fill `outcome.analysis` for an accuracy finding (in place, and returned); other outcomes pass through.

    With gradients (`upstream`, each sample's upstream gradients), a finding in an input's gradient
    is located in the backward (`judge.backward_analysis`).
    """
    if outcome.verdict is Verdict.POSITION_DEPENDENT and upstream is None:
        return _positions(graph, samples, target, device, outcome)
    if outcome.verdict not in ANALYSED or outcome.runs is None:
        return outcome
    output = flagged_index(outcome)
    if output is None:
        return outcome
    if output >= len(graph.outputs):  # judged after the outputs: an input's gradient
        return analyse_backward(graph, samples, upstream, target, device, outcome, output) if upstream is not None else outcome
    ev = Evidence(graph, samples, target, device, outcome, output)
    dropped = cast_dropped(ev)  # output-level and cheap; exposing values could undo the elision it sees
    if dropped is not None:
        return _store(outcome, output, None, dropped)
    nodes = cone(graph, graph.outputs[output])
    if len(nodes) == 1:
        ev.culprit = single_op_culprit(graph, outcome, output, "single op")
    else:
        probe = run_probe(graph, samples, target, device, output)
        if isinstance(probe, Probe) and probe_reproduces(graph, probe, outcome, output):
            ev.probe = probe
            ev.culprit = locate_culprit(graph, samples, probe, outcome)
            if ev.culprit is None:
                outcome.verdict = Verdict.AMPLIFIED
                outcome.detail = "the target parts from eager only where it is as accurate or more; an op downstream amplifies that"
                outcome.analysis = {"output": output, "culprit": None, "cause": "amplified", "evidence": [outcome.detail], "op": "", "dtype": ""}
                return outcome
        elif isinstance(probe, Probe):  # exposing the values changed what the compiler fused: cut the fused program instead
            ev.probe = probe
            ev.culprit, ev.suffix = locate_by_cutting(graph, samples, target, device, outcome, output)
        else:
            ev.culprit = single_op_culprit(graph, outcome, output, f"fallback (the probe gave {probe.verdict.value})")
    diagnosis = diagnose(ev)
    bounds = active_bounds()
    backward = measure(ev, bounds) if ev.culprit is not None else None
    _store(outcome, output, ev.culprit, diagnosis, backward)
    if backward is not None and outcome.verdict is Verdict.LESS_ACCURATE and within_rounding(outcome.analysis, bounds):
        outcome.verdict = Verdict.WITHIN_ROUNDING
        outcome.detail = describe(backward)
    if backward is not None and outcome.verdict is Verdict.NONFINITE and diagnosis.cause not in KEPT and within_rounding(outcome.analysis, bounds):
        why = rest_makes_it_nonfinite(ev)
        if why is not None:
            _benign(outcome, NONFINITE_REST, why, f"{describe(backward)}; {why}")
    if outcome.verdict is Verdict.NONFINITE:
        why = reordered_is_nonfinite(ev)
        if why is not None:
            _benign(outcome, REORDERED, why, why)
    return outcome


def _positions(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome) -> Outcome:
    found = positions_within_bounds(graph, samples, target, device, outcome)
    if found is not None:
        culprit, output, why = found
        outcome.verdict, outcome.detail = Verdict.WITHIN_ROUNDING, f"{outcome.detail}; {why}"
        outcome.analysis = {
            "output": output,
            "culprit": culprit.to_json(),
            "cause": "position_rounding",
            "evidence": [why],
            "op": culprit.op,
            "dtype": culprit.dtype,
        }
    return outcome


def _benign(outcome: Outcome, key: str, why: str, detail: str) -> None:
    """A non-finite outcome that `why` shows to be rounding: within_rounding, with the evidence stored under `key`."""
    outcome.verdict = Verdict.WITHIN_ROUNDING
    outcome.detail = detail
    outcome.analysis[key] = why
    outcome.analysis["evidence"].append(why)


def rounding_only(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome, cause: str) -> bool:
    """Is a less accurate outcome whose flagged output is one op only rounding within that op's bound? No compile.

    For the minimiser: shrinking values can turn a finding into rounding, which its verdict
    alone does not show. Where the flagged output is a single op its inputs are the case's, so
    the backward error costs float64 autograd only; elsewhere this says False (not known).
    """
    if outcome.verdict is not Verdict.LESS_ACCURATE or outcome.runs is None:
        return False
    output = flagged_index(outcome)
    if output is None or output >= len(graph.outputs) or len(cone(graph, graph.outputs[output])) != 1:
        return False
    ev = Evidence(graph, samples, target, device, outcome, output)
    ev.culprit = single_op_culprit(graph, outcome, output, "single op")
    bounds = active_bounds()
    record = measure(ev, bounds)
    return record is not None and bool(within_rounding({"cause": cause, "dtype": ev.culprit.dtype, "backward_error": record}, bounds))


def _store(outcome: Outcome, output: int, culprit, diagnosis: Diagnosis, backward: dict | None = None) -> Outcome:
    evidence = list(diagnosis.evidence) + ([describe(backward)] if backward is not None else [])
    outcome.analysis = {
        "output": output,
        "culprit": culprit.to_json() if culprit is not None else None,
        "cause": diagnosis.cause,
        "evidence": evidence,
        "op": diagnosis.op,
        "dtype": diagnosis.dtype,
    }
    if backward is not None:
        outcome.analysis["backward_error"] = backward
    return outcome
