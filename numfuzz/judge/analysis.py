"""The analysis of a finding: where the difference starts, why, and every fact the verdict rules read.

Run on every less_accurate, nonfinite or position_dependent outcome (in a campaign's worker, on
replay, on the minimised case). Its stages: localise (`judge.localize`: the probe that exposes
the cone's values, skipped when the flagged output's cone is one op or a dropped cast explains
the case), explain (`judge.causes`, in their documented order), measure (the rounding error at
the culprit, `judge.rounding_error`; for a non-finite value the rest-of-program and reorder
probes), then the rules (`judge.rules.final_verdict`) decide. It costs at most two compiles for a
value finding (the probe and the cancellation sweep) and one for a position-dependent one.

The facts are an `Analysis` (`judge.facts`) stored in `Outcome.analysis`; the oracle's verdict
stays in `Outcome.oracle`. Nothing here depends on the bounds but the rules' verdict.
"""

from __future__ import annotations

import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import AMPLIFIED, POSITION_PARTING, STALE_SCALAR, kept_whatever_the_bound
from numfuzz.judge.causes import Diagnosis, cast_dropped, diagnose
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis
from numfuzz.judge.gradient_analysis import analyse_gradient
from numfuzz.judge.localize import Probe, flagged_index, locate_by_cutting, locate_culprit, probe_reproduces, run_probe, single_op_culprit
from numfuzz.judge.nonfinite_rest import nonfinite_rest_evidence
from numfuzz.judge.position_analysis import position_partings
from numfuzz.judge.reduction_order import reorder_evidence
from numfuzz.judge.rounding_error import measure
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.rules import apply_rules
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.program.scalars import param_name, passed
from numfuzz.targets import Target


def analyse(
    graph: Graph,
    samples: list[list[torch.Tensor]],
    target: Target,
    device: str,
    outcome: Outcome,
    bounds: Bounds,
    upstream: list[list[torch.Tensor]] | None = None,
) -> Outcome:
    """Fill `outcome.analysis` for an accuracy or position finding and give it its final verdict (in place, and returned).

    With gradients (`upstream`, each sample's upstream gradients), a finding in an input's gradient
    is located in the backward (`judge.gradient_analysis`). Other outcomes pass through.
    """
    facts = None
    stale = (outcome.second_size or {}).get("stale_scalars")
    if stale and outcome.oracle.is_accuracy:
        facts = _stale_facts(graph, outcome, stale)
    elif outcome.oracle is Verdict.POSITION_DEPENDENT and upstream is None and outcome.runs is not None:
        facts = _position_facts(graph, samples, target, device, outcome)
    elif outcome.oracle.is_accuracy and outcome.runs is not None:
        output = flagged_index(outcome)
        if output is not None and output >= len(graph.outputs):  # judged after the outputs: an input's gradient
            facts = analyse_gradient(graph, samples, upstream, target, device, outcome, output, bounds) if upstream is not None else None
        elif output is not None:
            facts = _value_facts(Evidence(graph, samples, target, device, outcome, output, upstream=upstream), bounds)
    if facts is None:
        return outcome
    outcome.analysis = facts
    return apply_rules(outcome, bounds)


def _stale_facts(graph: Graph, outcome: Outcome, stale: list[str]) -> Analysis:
    """A second call whose compiled result is eager's with the first call's scalars (`second_size.reuses_first_scalars`):
    filed at the op whose scalar argument was reused; nothing is localised (a fresh compile would take the new value)."""
    names = {param_name(j, name): j for j, node in enumerate(graph.nodes) for name, _ in passed(node)}
    node = names.get(stale[0], 0)
    changed = {name: (first, second) for name, first, second in outcome.second_size.get("scalars", [])}
    said = ", ".join(f"{name} = {changed[name][1]!r} (first call: {changed[name][0]!r})" for name in stale if name in changed)
    why = f"the second call passes {said}; wherever the compiled result parts from eager's, it is nearer eager with the first call's value: that value was kept"
    output = flagged_index(outcome)
    return Analysis(0 if output is None else output, STALE_SCALAR.name, [why], graph.nodes[node].op, infer_specs(graph)[len(graph.inputs) + node].dtype)


def _value_facts(ev: Evidence, bounds: Bounds) -> Analysis:
    graph, outcome, output = ev.graph, ev.outcome, ev.output
    dropped = cast_dropped(ev)  # output-level and cheap; exposing values could undo the elision it sees
    if dropped is not None:
        return _facts(output, None, dropped)
    nodes = cone(graph, graph.outputs[output])
    if len(nodes) == 1:
        ev.culprit = single_op_culprit(graph, outcome, output, "single op")
    else:
        probe = run_probe(graph, ev.samples, ev.target, ev.device, output)
        if isinstance(probe, Probe) and probe_reproduces(graph, probe, outcome, output):
            ev.probe = probe
            ev.culprit = locate_culprit(graph, ev.samples, probe, outcome)
            if ev.culprit is None:
                return Analysis(output, cause=AMPLIFIED.name, evidence=[AMPLIFIED.phrase])
        elif isinstance(probe, Probe):  # exposing the values changed what the compiler fused: cut the fused program instead
            ev.probe = probe
            ev.culprit, ev.suffix = locate_by_cutting(graph, ev.samples, ev.target, ev.device, outcome, output, ev.upstream)
        elif probe.verdict is Verdict.MISMATCH:  # exposed, a value came out in another dtype or shape (a cast dropped): cut instead
            ev.culprit, ev.suffix = locate_by_cutting(graph, ev.samples, ev.target, ev.device, outcome, output, ev.upstream)
        else:
            ev.culprit = single_op_culprit(graph, outcome, output, f"fallback (the probe gave {probe.verdict.value})")
    diagnosis = diagnose(ev)  # cast_dropped again, now at a located cast (`causes.cast_dropped_at_cut`)
    facts = _facts(output, ev, diagnosis, measure(ev, bounds) if ev.culprit is not None else None)
    if outcome.oracle is Verdict.NONFINITE:  # the probes the rules read; their words join the detail where a rule holds
        if facts.rounding_error is not None and not kept_whatever_the_bound(diagnosis.cause, narrow=False):
            facts.nonfinite_rest = nonfinite_rest_evidence(ev)
        facts.reordered = reorder_evidence(ev)
    return facts


def _position_facts(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome) -> Analysis | None:
    found = position_partings(graph, samples, target, device, outcome)
    if found is None:
        return None
    culprit, output, partings = found
    evidence = [p.sentence() for p in partings]
    return Analysis(output, cause=POSITION_PARTING.name, evidence=evidence, op=culprit.op, dtype=culprit.dtype, culprit=culprit, partings=partings)


def _facts(output: int, ev: Evidence | None, diagnosis: Diagnosis, record: RoundingRecord | None = None) -> Analysis:
    """The evidence is the cause's; the rounding-error record is said in words where it is shown, under the bounds in force there."""
    culprit = ev.culprit if ev is not None else None
    return Analysis(output, diagnosis.cause, list(diagnosis.evidence), diagnosis.op, diagnosis.dtype, culprit=culprit, rounding_error=record)


def facts_without_compiling(
    graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome, cause: str, bounds: Bounds
) -> Analysis | None:
    """The facts of a less accurate outcome whose flagged output is one op, as far as float64 alone can measure them; None elsewhere.

    For the minimiser's predicate: shrinking values can turn a finding into rounding, which the
    oracle alone does not show. Where the flagged output is one op its inputs are the case's, so
    its rounding error costs float64 autograd only; `cause` is the finding's, which the candidate keeps.
    """
    if outcome.oracle is not Verdict.LESS_ACCURATE or outcome.runs is None:
        return None
    output = flagged_index(outcome)
    if output is None or output >= len(graph.outputs) or len(cone(graph, graph.outputs[output])) != 1:
        return None
    ev = Evidence(graph, samples, target, device, outcome, output)
    ev.culprit = single_op_culprit(graph, outcome, output, "single op")
    return Analysis(output, cause, op=ev.culprit.op, dtype=ev.culprit.dtype, culprit=ev.culprit, rounding_error=measure(ev, bounds))
