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

The same probe tests a `nonfinite_class` finding (`judge.nonfinite_class`), where the target lost a NaN or inf
that eager and float64 agree on (`class_rest_evidence`, for `judge.rules.ClassRest`): the exact rest, from the
target's culprit value, must give the target's class (a number, or the other non-finite) at every element it lost:
`acosh(cos(x))` is NaN wherever cos is a hair below 1, and a cos within its bound may round to 1, where it is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.localize import probe_values
from numfuzz.judge.nonfinite_class import class_lost, classes
from numfuzz.judge.oracle import KERNEL_BOUND_ULP, ulp_error
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.graph_edit import cut, index_after_cut
from numfuzz.program.ops import infer_specs

# How far from its float64 value an input of the output's op may be for a pole it reaches to be the program's
# conditioning: one op's documented rounding, as libraries state it for fp32 (`oracle.KERNEL_BOUND_ULP`), in ULPs of
# the input's own dtype.
INPUT_ROUNDING_ULP = KERNEL_BOUND_ULP

# Which elements a probe explains, from one sample's flat float64 reference, eager and target values of the output
Marked = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# Whether the exact values explain the target's there: (target's, exact) at the marked elements
Explains = Callable[[np.ndarray, np.ndarray], bool]


@dataclass(frozen=True)
class Wrong:
    """What the target got wrong, as the probe tests it: which elements, and what explains them after and at the culprit."""

    marked: Marked
    after: Explains  # by the exact rest of the program
    at_output: Explains  # by the culprit op, the output's own, computed exactly on the target's inputs
    words: str  # "made non-finite"


def _made_nonfinite(ref: np.ndarray, eager: np.ndarray, got: np.ndarray) -> np.ndarray:
    return ~np.isfinite(got) & np.isfinite(ref)


def _same_class(got: np.ndarray, exact: np.ndarray) -> bool:
    return bool((classes(got) == classes(exact)).all())


NONFINITE = Wrong(_made_nonfinite, lambda got, exact: not bool(np.isfinite(exact).any()), lambda got, exact: _same_non_finite(got, exact), "made non-finite")
CLASS_LOST = Wrong(class_lost, _same_class, _same_class, "lost the non-finite class at")


def nonfinite_rest_evidence(ev: Evidence) -> str | None:
    """Evidence that the exact rest of the program makes the target's non-finite elements from its culprit value; None otherwise."""
    return _rest_evidence(ev, NONFINITE)


def class_rest_evidence(ev: Evidence) -> str | None:
    """Evidence that the exact rest of the program, from the target's culprit value, gives the target's class (a number,
    or another non-finite class) wherever it lost the non-finite class eager and float64 agree on (`judge.nonfinite_class`)."""
    return _rest_evidence(ev, CLASS_LOST)


def _rest_evidence(ev: Evidence, wrong: Wrong) -> str | None:
    c, graph = ev.culprit, ev.graph
    n_in, out = len(graph.inputs), graph.outputs[ev.output]
    if c is None or ev.suffix is not None:
        return None
    if n_in + c.node == out:
        return _at_the_output(ev, wrong)
    if ev.probe is None or c.node not in ev.probe.nodes:
        return None
    rest = cut(graph, infer_specs(graph), {c.node})
    position = rest.outputs.index(index_after_cut(graph, [c.node], out))
    program = CompiledProgram(rest, ev.target, ev.device)
    culprit_values = probe_values(ev.probe, graph, ev.samples, "target", n_in + c.node)
    runs = ev.outcome.runs
    made = 0
    for sample, value, ref, eager, got in zip(ev.samples, culprit_values, runs.reference, runs.eager, runs.target):
        got_flat = _flat(got[ev.output])
        new = wrong.marked(_flat(ref[ev.output]), _flat(eager[ev.output]), got_flat)
        if not new.any():
            continue
        exact = _flat(program.reference(list(sample) + [value])[position])
        if not wrong.after(got_flat[new], exact[new]):
            return None  # an element the exact rest does not explain: the target's own doing
        made += int(new.sum())
    if not made:
        return None
    what = "is non-finite" if wrong is NONFINITE else "gives the target's class"
    return (
        f"the program after `{c.op}`, computed exactly in float64 from the target's `{c.op}` values, {what} "
        f"at all {made} elements the target {wrong.words}: the {_result(wrong)} is the program's conditioning at a value within its bound"
    )


def _result(wrong: Wrong) -> str:
    return "non-finite result" if wrong is NONFINITE else "lost class"


def _flat(x: torch.Tensor) -> np.ndarray:
    return x.detach().reshape(-1).to("cpu", torch.float64).numpy()


def _at_the_output(ev: Evidence, wrong: Wrong) -> str | None:
    """The culprit is the flagged output's op. Is it, computed exactly on the target's own inputs to it, what the target
    gave wherever the target got the output wrong, with those inputs within rounding of their float64 values there?
    Then the op did what it should (erfinv of a 1.0, rsqrt of a 0) at an input the ops before it may round to: the
    target's value is the op's conditioning, as the float64 program's would be one rounding away."""
    if not ev.inputs_seen():
        return None
    exact_values = ev.reference_of("target")
    args = ev.graph.nodes[ev.culprit.node].args
    runs = ev.outcome.runs
    made, farthest = 0, 0.0
    for s, (ref, eager, got, exact) in enumerate(zip(runs.reference, runs.eager, runs.target, exact_values)):
        got_flat = _flat(got[ev.output])
        new = wrong.marked(_flat(ref[ev.output]), _flat(eager[ev.output]), got_flat)
        if not new.any():
            continue
        if not wrong.at_output(got_flat[new], exact[new]):
            return None  # not so on its own inputs (finite there, or another non-finite class): the target's own doing
        for a in args:
            off = _input_ulps_off(ev, a, s, new)
            if off is None or not off <= INPUT_ROUNDING_ULP:  # NaN, from a NaN float64 value, is no closeness either
                return None  # an input far from its float64 value: the ops before the culprit made the pole
            farthest = max(farthest, off)
        made += int(new.sum())
    if not made:
        return None
    op = ev.culprit.op
    what = "is non-finite" if wrong is NONFINITE else "gives the target's class"
    return (
        f"`{op}` computed exactly in float64 on the target's own inputs to it {what} at all {made} elements the target "
        f"{wrong.words}, with those inputs within {farthest:.3g} ULP of their float64 values: the {_result(wrong)} is "
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
