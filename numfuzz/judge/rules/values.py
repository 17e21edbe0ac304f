"""The rules of a less accurate value or position (`judge.rules`): amplified, kept whatever the bound, within its bound,
ill conditioned at its culprit, or as unstable in eager."""

from __future__ import annotations

import math

from numfuzz.judge.bounds import Allowance, Bounds
from numfuzz.judge.cause import ILL_CONDITIONED, kept_whatever_the_bound
from numfuzz.judge.facts import Analysis
from numfuzz.judge.rounding_error_text import describe
from numfuzz.judge.rounding_record import allowance_of, record_within, within
from numfuzz.judge.rules.rule import ACCURACY, Rule, narrow, number, record_unmeasured
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype


class Amplified(Rule):
    """The probe shows no op where the target is worse than eager both locally and globally: the target parts from
    eager only where it is as accurate or more, and an ill-conditioned op downstream amplifies that. An integer output
    decided from floats that are no finding, differing only where they differ (`judge.decision_boundary`), too."""

    name, judges, gives, reads = (
        Verdict.AMPLIFIED.value,
        (*ACCURACY, Verdict.EXACT_MISMATCH),
        Verdict.AMPLIFIED,
        ("ill_conditioned",),
    )  # named for the verdict it gives

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return ILL_CONDITIONED.phrase if facts.ill_conditioned else None


class EagerNoCorrectBits(Rule):
    """A less accurate value or gradient where eager's largest absolute error is at least the output's largest
    |reference| value (`judge.eager_noise`): eager has no correct bit at any element, so the output is rounding noise
    whoever computes it, and the target's being further off is no compiler bug (a dropped cast included)."""

    name, judges, gives, reads, since = "eager_no_correct_bits", (Verdict.LESS_ACCURATE,), Verdict.EAGER_UNSTABLE, ("eager_noise",), 13

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.eager_noise is None:
            return None
        eager, scale = facts.eager_noise
        if not (math.isfinite(eager) and eager > 0 and eager >= scale):  # eager exact: any error of the target's is its own
            return None
        return f"eager's largest error ({eager:.3g}) is as large as the output's largest value ({scale:.3g}): eager has no correct bit, the output is rounding noise"

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return "eager's largest error against the output's largest value" if facts.eager_noise is None else None


class KeptCause(Rule):
    """A cause kept whatever the bound (`Cause.kept`; some only in bf16/fp16) is a finding: the compiled code does
    not round as the program asked, or makes a value non-finite that eager keeps finite."""

    name, judges, gives, reads = "kept_cause", ACCURACY, None, ("cause", "dtype")

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if kept_whatever_the_bound(facts.cause, narrow(facts.dtype)):
            return f"{facts.cause} is a finding whatever the bound"
        return None


class ValueWithinBound(Rule):
    """A less accurate value whose culprit op is within its documented bound at every element measured: its error
    at the op is at most the bound, or it is the exact result of inputs moved within it (`judge.rounding_error`)."""

    name, judges, gives, reads, bounded = "value_within_bound", (Verdict.LESS_ACCURATE,), Verdict.WITHIN_ROUNDING, ("gradient_of", "rounding_error"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.gradient_of is not None or not record_within(facts.rounding_error, bounds):
            return None
        return describe(facts.rounding_error, bounds)

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return record_unmeasured(facts) if facts.gradient_of is None and facts.culprit is not None else None


class IllConditionedCulprit(Rule):
    """A less accurate value whose culprit is beyond its bound only at elements where the op's condition is infinite or
    at least 2**p (p: its dtype's significand bits), and where no input move explains the value to first order: there
    one rounding of the op's input, a fused kernel's unrounded input among them, moves the result by all of its bits
    (acosh at 1, a log at a pole). The op amplifies a difference; it does not compute worse. A condition that is NaN
    (0/0: an exact zero where the op is flat, a clamp's bound) is no evidence of amplifying: an op off there is worse."""

    name, judges, gives, reads, bounded = "ill_conditioned_culprit", (Verdict.LESS_ACCURATE,), Verdict.AMPLIFIED, ("gradient_of", "rounding_error"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        record = facts.rounding_error
        if facts.gradient_of is not None or record is None or not record.judgeable or record.target is None or record.target.front is None:
            return None
        try:
            allowance = allowance_of(record, bounds)
            limit = 2.0 ** check_dtype(record.dtype).mantissa_bits
        except (KeyError, TypeError, ValueError):
            return None
        beyond = lambda forward, needed: forward > allowance.output_ulp and needed > allowance.input_ulp  # noqa: E731
        worst = [w for w in record.target.worst if beyond(number(w.get("forward_ulp")), number(w.get("needed_ulp")))]
        conditions = [number(w.get("condition"), nan_as=0.0) for w in worst]
        if not worst or any(c < limit for c in conditions) or any(beyond(f, n) and math.isfinite(n) for f, n in record.target.front):
            return None
        return (
            f"`{record.op}` ({record.dtype}) is beyond its bound only where its condition is {min(conditions):.3g} or more (2**{int(math.log2(limit))} "
            "would lose every bit to one rounding of its input): the op amplifies a difference in its input, it does not compute worse"
        )


class PositionWithinBound(Rule):
    """A position-dependent result whose two positions first part, on every axis that shows it, at an op whose
    compiled values are within the op's bound of the op applied exactly to their own inputs (`judge.position_analysis`)."""

    name, judges, gives, reads, bounded = "position_within_bound", (Verdict.POSITION_DEPENDENT,), Verdict.WITHIN_ROUNDING, ("partings",), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if not facts.partings:
            return None
        allowed = [bounds.allowance(p.op, p.dtype, p.device).output_ulp for p in facts.partings]
        if not all(p.local_ulp <= a for p, a in zip(facts.partings, allowed)):
            return None
        return "; ".join(p.sentence(a) for p, a in zip(facts.partings, allowed))

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return "where the positions part" if not facts.partings else None


class EagerFailsToo(Rule):
    """A less accurate value or gradient, or a position-dependent result, where eager's own value at the culprit is
    far outside the op's bound too (neither within FAR times the bound at its output nor explained by inputs within
    FAR times it; at a parting, more than FAR times the bound off): the formula is unstable whoever computes it, and
    the compiled value being worse is no compiler bug. Never for a non-finite result where eager is finite."""

    name, judges, gives, reads, bounded = (
        "eager_fails_too",
        (Verdict.LESS_ACCURATE, Verdict.POSITION_DEPENDENT),
        Verdict.EAGER_UNSTABLE,
        ("rounding_error", "partings"),
        True,
    )
    FAR = 16.0  # times the op's bound ...
    AT_LEAST = 16.0  # ... and at least this many ULPs: a bound of 0 makes no value unstable

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.partings:
            allowed = [bounds.allowance(p.op, p.dtype, p.device).output_ulp for p in facts.partings]
            if all(p.eager_ulp is not None and math.isfinite(p.eager_ulp) and p.eager_ulp > self._far(a) for p, a in zip(facts.partings, allowed)):
                parts = "; ".join(
                    f"`{p.op}` ({p.dtype}): eager is {p.eager_ulp:.3g} ULP off the op on its own inputs, its bound {a:g}"
                    for p, a in zip(facts.partings, allowed)
                )
                return f"eager is equally unstable where the positions part: {parts}"
            return None
        record = facts.rounding_error
        if record is None or record.eager is None:  # no record, or one that cannot say
            return None
        eager = record.eager
        try:
            allowance = allowance_of(record, bounds)
            far = Allowance(self._far(allowance.output_ulp), self._far(allowance.input_ulp), allowance.bound, allowance.fp32_ulp)
            if not math.isfinite(eager.max_forward_ulp) or within(eager, far):
                return None
        except (KeyError, TypeError, ValueError):  # a record that cannot say
            return None
        what = f"`{record.op}`'s backward" if record.backward else f"`{record.op}`"
        return (
            f"eager is equally unstable at {what}: its own value needs {eager.max_needed_ulp:.3g} ULP of input move and is "
            f"{eager.max_forward_ulp:.3g} ULP off, beyond {self.FAR:g} times the bound ({allowance.output_ulp:g} ULP at the output, "
            f"{allowance.input_ulp:.3g} of input move) and {self.AT_LEAST:g} ULP"
        )

    def _far(self, bound: float) -> float:
        return max(self.FAR * bound, self.AT_LEAST)

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.partings:
            return "eager's error where the positions part" if any(p.eager_ulp is None for p in facts.partings) else None
        record = facts.rounding_error
        if record is None or record.error:  # nothing measured at the culprit, now as then
            return None
        return "eager's side of the rounding-error record" if record.eager is None or record.eager.front is None else None
