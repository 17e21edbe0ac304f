"""Is a non-finite output the rest of the program's, at a culprit value within its bound?

A `nonfinite` finding stays a finding whatever the bound, because a compiler
must not turn a finite result into inf or NaN. But where the op the difference starts at is
within its documented bound, and the ops after it turn that value into inf or NaN when they are
computed exactly, the non-finite value is the conditioning of the program, not a compiler's
error: `digamma(log(abs(cos(x))))` is infinite wherever `cos` rounds to 1, and a cos within its
bound may. The test: the program from the culprit on, in float64, fed the target's culprit
value (and the exact values of every other input), is non-finite at every element the target
made non-finite. Where the culprit is the output's own op there is no rest: the op computed exactly
on the target's inputs to it must give the same non-finite values, with those inputs within
INPUT_ROUNDING_ULP of their float64 values (erfinv of a 1.0 that one rounding gave). No compile:
the float64 reference only. Whether the culprit is within its bound is the rule's to say
(`judge.rules.NonfiniteRest`): this probe is a fact, measured whatever the bounds.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.localize import probe_values
from numfuzz.judge.oracle import KERNEL_BOUND_ULP, ulp_error
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.graph_edit import cut, index_after_cut
from numfuzz.program.ops import infer_specs

# How far from its float64 value an input of the output's op may be for a pole it reaches to be the program's
# conditioning: one op's documented rounding, as libraries state it for fp32 (`oracle.KERNEL_BOUND_ULP`), in ULPs of
# the input's own dtype.
INPUT_ROUNDING_ULP = KERNEL_BOUND_ULP


def nonfinite_rest_evidence(ev: Evidence) -> str | None:
    """Evidence that the exact rest of the program makes the target's non-finite elements from its culprit value; None otherwise."""
    c, graph = ev.culprit, ev.graph
    n_in, out = len(graph.inputs), graph.outputs[ev.output]
    if c is None or ev.suffix is not None:
        return None
    if n_in + c.node == out:
        return _at_the_output(ev)
    if ev.probe is None or c.node not in ev.probe.nodes:
        return None
    rest = cut(graph, infer_specs(graph), {c.node})
    position = rest.outputs.index(index_after_cut(graph, [c.node], out))
    program = CompiledProgram(rest, ev.target, ev.device)
    culprit_values = probe_values(ev.probe, graph, ev.samples, "target", n_in + c.node)
    made = 0
    for sample, value, ref, got in zip(ev.samples, culprit_values, ev.outcome.runs.reference, ev.outcome.runs.target):
        new = ~torch.isfinite(got[ev.output]) & torch.isfinite(ref[ev.output].to(got[ev.output].device))
        if not bool(new.any()):
            continue
        exact = program.reference(list(sample) + [value])[position].to(new.device)
        if bool((new & torch.isfinite(exact)).any()):
            return None  # an element the exact rest keeps finite: the target's own doing
        made += int(new.sum())
    if not made:
        return None
    return (
        f"the program after `{c.op}`, computed exactly in float64 from the target's `{c.op}` values, is non-finite "
        f"at all {made} elements the target made non-finite: the non-finite result is the program's conditioning at a value within its bound"
    )


def _at_the_output(ev: Evidence) -> str | None:
    """The culprit is the flagged output's op. Is it, computed exactly on the target's own inputs to it, non-finite
    wherever the target made the output non-finite, with those inputs within rounding of their float64 values there?
    Then the op did what it should (erfinv of a 1.0, rsqrt of a 0) at an input the ops before it may round to: the
    non-finite value is the op's conditioning, as the float64 program's would be one rounding away."""
    if not ev.inputs_seen():
        return None
    exact_values = ev.reference_of("target")
    args = ev.graph.nodes[ev.culprit.node].args
    made, farthest = 0, 0.0
    for s, (ref, got, exact) in enumerate(zip(ev.outcome.runs.reference, ev.outcome.runs.target, exact_values)):
        new = (~torch.isfinite(got[ev.output]) & torch.isfinite(ref[ev.output].to(got[ev.output].device))).reshape(-1).cpu().numpy()
        if not new.any():
            continue
        got_flat = got[ev.output].reshape(-1).double().cpu().numpy()
        if not _same_non_finite(got_flat[new], exact[new]):
            return None  # finite there on its own inputs, or another non-finite (NaN for inf): the target's own doing
        for a in args:
            off = _input_ulps_off(ev, a, s, new)
            if off is None or not off <= INPUT_ROUNDING_ULP:  # NaN, from a NaN float64 value, is no closeness either
                return None  # an input far from its float64 value: the ops before the culprit made the pole
            farthest = max(farthest, off)
        made += int(new.sum())
    if not made:
        return None
    op = ev.culprit.op
    return (
        f"`{op}` computed exactly in float64 on the target's own inputs to it is non-finite at all {made} elements the target "
        f"made non-finite, with those inputs within {farthest:.3g} ULP of their float64 values: the non-finite result is "
        f"`{op}`'s conditioning at an input one rounding may give"
    )


def _same_non_finite(got: np.ndarray, exact: np.ndarray) -> bool:
    """The target's values are the exact op's non-finite values: NaN where it is NaN, inf of the same sign where it is inf."""
    same_inf = np.isinf(exact) & (got == exact)
    both_nan = np.isnan(exact) & np.isnan(got)
    return bool((same_inf | both_nan).all())


def _input_ulps_off(ev: Evidence, value: int, sample: int, where: np.ndarray) -> float | None:
    """How far the target's value of graph value `value` is from its float64 value at the elements `where` (of the
    culprit's output), in ULPs of its dtype; 0 for a given input; None where the elements do not line up (broadcast)."""
    spec = infer_specs(ev.graph)[value]
    if is_integer(spec.dtype) or value < len(ev.graph.inputs):
        return 0.0
    got = probe_values(ev.probe, ev.graph, ev.samples, "target", value)[sample].reshape(-1).cpu().double().numpy()
    exact = probe_values(ev.probe, ev.graph, ev.samples, "reference", value)[sample].reshape(-1).cpu().double().numpy()
    if got.size != where.size:
        return None
    return float(ulp_error(got[where], exact[where], check_dtype(spec.dtype)).max())
