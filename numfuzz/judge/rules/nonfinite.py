"""The rules of a non-finite value (`judge.rules`): whose inf or NaN it is, where eager's is finite; and whose number it
is where eager and float64 agree on a NaN or inf (`nonfinite_class`)."""

from __future__ import annotations

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import CAST_DROPPED, EMULATED_ROUNDING
from numfuzz.judge.facts import Analysis
from numfuzz.judge.rounding_error_text import describe
from numfuzz.judge.rounding_record import record_within
from numfuzz.judge.rules.rule import Rule
from numfuzz.judge.verdicts import Verdict


class ReorderedReduction(Rule):
    """A non-finite sum, mean or product where eager, given the same terms reversed or rotated along the reduced dim,
    is non-finite at the same elements: a reduction's order is unspecified (`judge.reduction_order`). No bound is involved."""

    name, judges, gives, reads = "reordered_reduction", (Verdict.NONFINITE,), Verdict.WITHIN_ROUNDING, ("reordered",)

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.reordered


class OverflowsToo(Rule):
    """A non-finite value where eager's same output is non-finite too, and where only the target is non-finite at the
    culprit, eager's value there is within a binade of the dtype's largest finite (`judge.overflow_boundary`): the overflow
    is the program's, and the target drew its boundary one rounding further. Before `kept_cause`: a non-finite
    intermediate that eager's own overflow brackets is not the target's; a dropped or added rounding stays a finding."""

    name, judges, gives, reads, since = "overflows_too", (Verdict.NONFINITE,), Verdict.EAGER_UNSTABLE, ("overflows_too", "cause"), 2

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.overflows_too if not _rounding_asked(facts) else None

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        value = facts.gradient_of is None and facts.culprit is not None and not facts.culprit.located.startswith("fallback")
        return "whether eager's output overflows too" if value and facts.overflows_too is None else None


class DomainEdge(Rule):
    """A non-finite value that the culprit op gives exactly at its inputs moved within their own rounding, inputs the
    program made in bf16/fp16 and a fused kernel may read unrounded (`judge.domain_edge`): the program sits on the edge of
    the op's domain (acosh at 1), and the target's more precise input fell beyond it. A dropped or added rounding the
    program asked about stays a finding."""

    name, judges, gives, reads, since = "domain_edge", (Verdict.NONFINITE,), Verdict.AMPLIFIED, ("domain_edge", "cause"), 2

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.domain_edge if not _rounding_asked(facts) else None


def _rounding_asked(facts: Analysis) -> bool:
    """The cause is a rounding the program asked for that the target skipped, or one it added: never benign."""
    return facts.cause in (CAST_DROPPED.name, EMULATED_ROUNDING.name)


class NonfiniteRest(Rule):
    """A non-finite value whose culprit is within its bound, where the rest of the program computed exactly from the
    target's culprit value is non-finite at every element the target made non-finite (`judge.nonfinite_rest`)."""

    name, judges, gives, reads, bounded = "nonfinite_rest", (Verdict.NONFINITE,), Verdict.WITHIN_ROUNDING, ("rounding_error", "nonfinite_rest"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.nonfinite_rest is None or not record_within(facts.rounding_error, bounds):
            return None
        return f"{describe(facts.rounding_error, bounds)}; {facts.nonfinite_rest}"


class ClassRest(Rule):
    """A non-finite class lost (`judge.nonfinite_class`: a number, or another class, where eager and float64 agree on
    NaN, +inf or -inf) whose culprit is an op that is less accurate there yet within its bound, where the rest of the
    program computed exactly from the target's culprit value gives the target's class at every element it lost
    (`judge.nonfinite_rest.class_rest_evidence`): a value within one op's rounding crosses the edge of a later op's
    domain (`acosh(cos(x))` with cos rounded to 1), and the NaN the program makes one rounding away is the program's.

    Its other side, said here because no rule of its own gives it: an op that itself loses the class on its own inputs
    (the cause `nonfinite_dropped`: a maximum ignoring a NaN, `x * 0` folded to 0, an empty mean made 0) is a finding
    whatever the bound (`kept_cause`, earlier); so is one whose culprit is beyond its bound, or whose lost elements the
    exact rest does not give. Where no op is worse at all, `amplified` (first) holds."""

    name, judges, gives, reads, bounded, since = (
        "class_rest",
        (Verdict.NONFINITE_CLASS,),
        Verdict.WITHIN_ROUNDING,
        ("rounding_error", "class_rest"),
        True,
        3,
    )

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.class_rest is None or not record_within(facts.rounding_error, bounds):
            return None
        return f"{describe(facts.rounding_error, bounds)}; {facts.class_rest}"
