"""The analysis of a finding: where the difference starts, why, and every fact the verdict rules read.

Run on every less_accurate, nonfinite, nonfinite_class or position_dependent outcome (in a campaign's worker, on
replay, on the minimised case). Its stages: locate (`judge.localize`: the probe that exposes
the cone's values, skipped when the flagged output's cone is one op or a dropped cast explains
the case), explain (`judge.cause_tests`: every cause's test, at its stage and in its order), measure (the rounding error at
the culprit, `judge.rounding_error`; for a non-finite value the rest-of-program and reorder
probes; for a non-finite class lost, the rest-of-program probe), then the rules (`judge.rules.final_verdict`) decide. It costs at most two compiles for a
value finding (the probe and the cancellation sweep) and one for a position-dependent one.

The facts are an `Analysis` (`judge.facts`) stored in `Outcome.analysis`; the oracle's verdict
stays in `Outcome.oracle`. Nothing here depends on the bounds but the rules' verdict.
"""

from __future__ import annotations

import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cast_dropped import cast_dropped_exactly
from numfuzz.judge.cause import Diagnosis, kept_whatever_the_bound
from numfuzz.judge.cause_tests import Stage, decided_facts, diagnose, first_holding
from numfuzz.judge.decision_boundary import decided_at_a_boundary
from numfuzz.judge.domain_edge import domain_edge_evidence
from numfuzz.judge.eager_noise import eager_noise
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis, Culprit
from numfuzz.judge.localize import Probe, flagged_index, locate_by_cutting, locate_culprit, probe_reproduces, run_probe, single_op_culprit
from numfuzz.judge.nonfinite_rest import class_rest_evidence, nonfinite_rest_evidence
from numfuzz.judge.overflow_boundary import overflow_boundary_evidence
from numfuzz.judge.reduction_order import reorder_evidence
from numfuzz.judge.refusing_op import refusing_op
from numfuzz.judge.rounding_error import measure
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.rules import apply_rules
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
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

    The stages run in the order of `cause_tests.Stage`: a stale scalar of the second call, a position
    finding, a finding in an input's gradient (with gradients, `upstream`: each sample's upstream
    gradients) each decide the facts; a value finding is located and diagnosed. A refusal gets the op
    that draws it (`judge.refusing_op`). Other outcomes pass through.
    """
    if outcome.oracle is Verdict.UNSUPPORTED:  # a refusal: only which op draws it (one compile per node tried)
        outcome.analysis = refusing_op(graph, samples, target, device, outcome)
        return outcome
    if outcome.oracle is Verdict.EXACT_MISMATCH:  # integer values: no rounding to locate; a dropped cast, or a decision's boundary
        outcome.analysis = (
            cast_dropped_exactly(graph, samples, outcome)
            or decided_at_a_boundary(graph, samples, target, device, outcome, bounds, analyse)
            or computed_from_inputs(graph, outcome)
        )
        return apply_rules(outcome, bounds) if outcome.analysis is not None else outcome
    output = flagged_index(outcome)
    ev = Evidence(graph, samples, target, device, outcome, 0 if output is None else output, upstream=upstream)
    facts = decided_facts(ev, bounds)
    if facts is None and outcome.oracle.is_accuracy and outcome.runs is not None and output is not None and output < len(graph.outputs):
        facts = _value_facts(ev, bounds)
    if facts is None:
        return outcome
    if facts.eager_noise is None:  # the fact the rule `eager_no_correct_bits` reads
        facts.eager_noise = eager_noise(outcome.outputs, facts.output)
    outcome.analysis = facts
    return apply_rules(outcome, bounds)


def computed_from_inputs(graph: Graph, outcome: Outcome) -> Analysis | None:
    """An exact mismatch at an output whose op reads only the program's inputs, which eager and the target share: that
    op's own values differ (an argmax of uint8 values giving an index past the tensor). Its op names the finding, so a
    known issue of that op can claim it even where a minimisation does not reproduce it; None for any other output."""
    output = flagged_index(outcome)
    if output is None or output >= len(graph.outputs) or graph.outputs[output] < len(graph.inputs):
        return None
    k = graph.outputs[output] - len(graph.inputs)
    node = graph.nodes[k]
    if not all(arg < len(graph.inputs) for arg in node.args):
        return None
    dtype = infer_specs(graph)[graph.outputs[output]].dtype
    located = "reads only the program's inputs"
    evidence = f"`{node.op}` reads only the program's inputs, which eager and the target share: its own values differ"
    return Analysis(output, "", [evidence], node.op, dtype, culprit=Culprit(k, node.op, dtype, outcome.verdict.value, located))


def _locate(ev: Evidence) -> None:
    """Set the culprit: by the probe of the flagged output's cone, by cutting the fused program where exposing values
    changed it, or the flagged output's own op. Left None where the probe shows no op worse (the cause `ill_conditioned`)."""
    graph, outcome, output = ev.graph, ev.outcome, ev.output
    if len(cone(graph, graph.outputs[output])) == 1:
        ev.culprit = single_op_culprit(graph, outcome, output, "single op")
        return
    probe = run_probe(graph, ev.samples, ev.target, ev.device, output)
    if isinstance(probe, Probe) and probe_reproduces(graph, probe, outcome, output):
        ev.probe = probe
        ev.culprit = locate_culprit(graph, ev.samples, probe, outcome)
    elif isinstance(probe, Probe):  # exposing the values changed what the compiler fused: cut the fused program instead
        ev.probe = probe
        ev.culprit, ev.suffix = locate_by_cutting(graph, ev.samples, ev.target, ev.device, outcome, output, ev.upstream)
    elif probe.verdict is Verdict.MISMATCH:  # exposed, a value came out in another dtype or shape (a cast dropped): cut instead
        ev.culprit, ev.suffix = locate_by_cutting(graph, ev.samples, ev.target, ev.device, outcome, output, ev.upstream)
    else:
        ev.culprit = single_op_culprit(graph, outcome, output, f"fallback (the probe gave {probe.verdict.value})")


def _value_facts(ev: Evidence, bounds: Bounds) -> Analysis:
    output = ev.output
    dropped = first_holding(ev, Stage.BEFORE_LOCATING)  # output-level and cheap; exposing values could undo the elision it sees
    if dropped is not None:
        return _facts(output, None, dropped)
    _locate(ev)
    unlocated = first_holding(ev, Stage.LOCATING)
    if unlocated is not None:
        return _facts(output, ev, unlocated)
    diagnosis = diagnose(ev)  # cast_dropped again, now at a located cast (`causes.cast_dropped_at_cut`)
    # a culprit that loses a non-finite class itself has no rounding error to measure: a class is not rounded
    rounds = ev.culprit is not None and ev.culprit.verdict != Verdict.NONFINITE_CLASS.value
    facts = _facts(output, ev, diagnosis, measure(ev, bounds) if rounds else None)
    if ev.outcome.oracle is Verdict.NONFINITE_CLASS and facts.rounding_error is not None and not kept_whatever_the_bound(diagnosis.cause, narrow=False):
        facts.class_rest = class_rest_evidence(ev)  # the probe the rule `class_rest` reads
    if ev.outcome.oracle is Verdict.NONFINITE:  # the probes the rules read; their words join the detail where a rule holds
        if facts.rounding_error is not None and not kept_whatever_the_bound(diagnosis.cause, narrow=False):
            facts.nonfinite_rest = nonfinite_rest_evidence(ev)
        facts.reordered = reorder_evidence(ev)
        facts.overflows_too = overflow_boundary_evidence(ev)
        facts.domain_edge = domain_edge_evidence(ev)
    return facts


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
    ev = single_op_evidence(graph, samples, target, device, outcome) if outcome.oracle is Verdict.LESS_ACCURATE else None
    if ev is None:
        return None
    return Analysis(ev.output, cause, op=ev.culprit.op, dtype=ev.culprit.dtype, culprit=ev.culprit, rounding_error=measure(ev, bounds))


def single_op_evidence(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome) -> Evidence | None:
    """The evidence of an outcome whose flagged output (a value, not a gradient) is one op, that op its culprit: what
    float64 alone can test, no probe needed. None where there are no runs, no flagged value or a longer cone."""
    output = flagged_index(outcome) if outcome.runs is not None else None
    if output is None or output >= len(graph.outputs) or len(cone(graph, graph.outputs[output])) != 1:
        return None
    ev = Evidence(graph, samples, target, device, outcome, output)
    ev.culprit = single_op_culprit(graph, outcome, output, "single op")
    return ev
