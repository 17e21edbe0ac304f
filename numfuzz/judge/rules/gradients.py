"""The rules of a less accurate gradient (`judge.rules`): its culprit's backward within its bound, how a backward is fused."""

from __future__ import annotations

import math

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.facts import Analysis
from numfuzz.judge.rounding_error_text import describe
from numfuzz.judge.rounding_record import record_within
from numfuzz.judge.rules.rule import Rule, record_unmeasured
from numfuzz.judge.verdicts import Verdict

# how the backward's locator says that no op's backward alone is less accurate (`judge.gradient_analysis`)
FUSED_BACKWARD_LOCATED = "fallback (no op's backward alone"


class GradientWithinBound(Rule):
    """A less accurate gradient whose culprit's backward, cut out and run alone, is within the op's backward bound
    at every element measured (`judge.gradient_rounding`, `Bounds.backward_allowance`)."""

    name, judges, gives, reads, bounded = "gradient_within_bound", (Verdict.LESS_ACCURATE,), Verdict.WITHIN_ROUNDING, ("gradient_of", "rounding_error"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.gradient_of is None or not record_within(facts.rounding_error, bounds):
            return None
        return describe(facts.rounding_error, bounds)

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        cut = facts.culprit is not None and facts.culprit.located == "cutting the backward"  # a cut backward is measured
        return record_unmeasured(facts) if facts.gradient_of is not None and cut else None


class FusedBackward(Rule):
    """A less accurate gradient where no op's backward, cut out and run alone on eager's values, is less accurate on the
    target, and the gradient loses at most FUSED_BACKWARD_BITS (`oracle.gradient_bits_lost`, the measure its severity
    reads too): the difference is only how the backward is fused or partitioned (an intermediate kept in fp32 where
    eager rounds it, or another order), which no maintainer takes as a bug."""

    name, judges, gives, reads = "fused_backward", (Verdict.LESS_ACCURATE,), Verdict.WITHIN_ROUNDING, ("gradient_of", "fused_backward_bits")
    # a fused backward rounds each intermediate once more or once less than eager's: over the few ops of a case, a few
    # roundings either way; 2 bits is four times eager's error (the unlocated groups of a 10-minute Thunder campaign: 0 to 1.9,
    # measured then at the output's scale, where the errors of small elements count for less)
    FUSED_BACKWARD_BITS = 2.0

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        bits = facts.fused_backward_bits
        if facts.gradient_of is None or bits is None or bits > self.FUSED_BACKWARD_BITS:
            return None
        return (
            f"no op's backward alone is less accurate on the target, and the gradient loses {bits:.2g} bits (at most {self.FUSED_BACKWARD_BITS:g}): "
            "the difference is how the backward is fused or partitioned"
        )

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        fused = facts.culprit is not None and facts.culprit.located.startswith(FUSED_BACKWARD_LOCATED)
        return "the bits the fused backward loses" if facts.gradient_of is not None and fused and facts.fused_backward_bits is None else None


class GradientAbsNoWorse(Rule):
    """A less accurate gradient whose largest absolute error is no larger than eager's: the ULPs it loses are at
    elements near zero, where the rounding of a sum whose terms are the size of the largest elements is large against
    the element; at the gradient's own scale it is as accurate as eager."""

    name, judges, gives, reads, since = "gradient_abs_no_worse", (Verdict.LESS_ACCURATE,), Verdict.WITHIN_ROUNDING, ("gradient_of", "gradient_max_abs"), 2

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.gradient_of is None or facts.gradient_max_abs is None:
            return None
        target, eager = facts.gradient_max_abs
        if not (math.isfinite(target) and 0 < eager and target <= eager):  # eager exact: any error of the target's is its own
            return None
        return (
            f"the gradient's largest absolute error ({target:.3g}) is no larger than eager's ({eager:.3g}): the ULPs it loses are at "
            "elements near zero, where a sum's rounding is large against the element"
        )

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return "the gradient's largest absolute errors" if facts.gradient_of is not None and facts.gradient_max_abs is None else None


class Subgradient(Rule):
    """A less accurate gradient that parts from eager's only where the culprit op has no derivative (clamp at x = min =
    max, relu or abs at 0, max at a tie), and is between the op's one-sided derivatives there, as eager's is: autograd
    chose another subgradient, which no maintainer takes as a bug (`judge.kinks`)."""

    name, judges, gives, reads, since = "subgradient", (Verdict.LESS_ACCURATE,), Verdict.SUBGRADIENT, ("gradient_of", "subgradient"), 6

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.subgradient if facts.gradient_of is not None else None


class NanUnreached(Rule):
    """A gradient that loses a non-finite class (eager and float64 give NaN or inf, the target a number) only at elements
    the non-finite inputs do not reach: with them replaced by 0 and by 1 the float64 reference there is finite, the same,
    and the target's value (`judge.nan_unreached`). Eager's backward multiplies them by a zero the math does not have
    (causal attention's masked query rows in its key gradient); the target's value is the gradient's."""

    name, judges, gives, reads, since = "nan_unreached", (Verdict.NONFINITE_CLASS,), Verdict.EAGER_UNSTABLE, ("gradient_of", "nan_unreached"), 12

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.nan_unreached if facts.gradient_of is not None else None

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return "whether the non-finite inputs reach the elements it lost" if facts.gradient_of is not None and facts.nan_unreached is None else None
