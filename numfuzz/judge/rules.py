"""THE verdict: the oracle's verdict, then the first of the named rules below that holds of the analysis's facts.

`final_verdict(oracle, facts, bounds)` is the one function that decides. It is pure: the same
verdict wherever it is asked, live after an analysis (`judge.analysis`), for a stored case when
a corpus is listed or a campaign dedupes (`corpus.grouping`, `campaign.dedupe`), by the
minimiser's predicate (`reduce.minimize`) and in the issue text. The oracle's own verdict is kept
in the outcome (`Outcome.oracle`), and the facts never depend on the bounds, so a case judged
again under a tighter or looser `--bounds` file gets what a live run under that file would give.

The rules, in order (each class below states its rule in its docstring):

1. amplified                -- the difference is worse nowhere it starts (the cause `ill_conditioned`): amplified downstream.
2. reordered_reduction      -- a non-finite sum or product that eager makes too in another order.
3. kept_cause               -- a dropped cast, an emulated rounding, a non-finite intermediate, or a
                               narrow accumulator: a finding whatever the bound.
4. gradient_within_bound    -- a gradient whose culprit's backward is within its bound.
5. fused_backward           -- a gradient no op's backward alone makes less accurate, at most 2 bits
                               worse: how the backward is fused.
6. value_within_bound       -- a value whose culprit op is within its bound.
7. nonfinite_rest           -- a non-finite value that the exact rest of the program makes from a
                               culprit value within its bound.
8. position_within_bound    -- two positions that part at an op within its bound at both.
9. eager_fails_too          -- eager's own value at the culprit is far outside the op's bound as
                               well: the formula is unstable whoever computes it.

Where none holds, the oracle's verdict stands.

A stored outcome older than a rule (`Outcome.rules_version` below its `since`) may lack a fact the
rule reads: `undecided` says which, where no rule decides the outcome without it. A corpus listing
shows such a finding as stale rather than new (`corpus.rejudge`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from numfuzz.judge.bounds import FP32_MANTISSA, Allowance, Bounds
from numfuzz.judge.cause import ILL_CONDITIONED, kept_whatever_the_bound
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import RULES_VERSION, Analysis
from numfuzz.judge.rounding_error_text import describe
from numfuzz.judge.rounding_record import allowance_of, record_within, within
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype

ACCURACY = tuple(v for v in Verdict if v.is_accuracy)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rule: str = ""  # the rule that gave it; "" where the oracle's verdict stands
    why: str = ""  # the rule's evidence


class Rule:
    """A named rule: for the oracle verdicts it `judges`, where `holds` gives evidence, the verdict is `gives`."""

    name: ClassVar[str]
    judges: ClassVar[tuple[Verdict, ...]]
    gives: ClassVar[Verdict | None]  # None: the oracle's verdict stands, and no later rule is asked
    reads: ClassVar[tuple[str, ...]]  # the facts it reads (fields and properties of `Analysis`)
    bounded: ClassVar[bool] = False  # depends on the bounds
    since: ClassVar[int] = 1  # the rules' version (`facts.RULES_VERSION`) from which a stored outcome has what it reads, as it reads it

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        raise NotImplementedError

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        """In an outcome stored before `since`: the fact this rule reads that is not there as it reads it (None: all are)."""
        return None


class Amplified(Rule):
    """The probe shows no op where the target is worse than eager both locally and globally: the target parts from
    eager only where it is as accurate or more, and an ill-conditioned op downstream amplifies that."""

    name, judges, gives, reads = Verdict.AMPLIFIED.value, ACCURACY, Verdict.AMPLIFIED, ("ill_conditioned",)  # named for the verdict it gives

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return ILL_CONDITIONED.phrase if facts.ill_conditioned else None


class ReorderedReduction(Rule):
    """A non-finite sum, mean or product where eager, given the same terms reversed or rotated along the reduced dim,
    is non-finite at the same elements: a reduction's order is unspecified (`judge.reduction_order`). No bound is involved."""

    name, judges, gives, reads = "reordered_reduction", (Verdict.NONFINITE,), Verdict.WITHIN_ROUNDING, ("reordered",)

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        return facts.reordered


class KeptCause(Rule):
    """A cause kept whatever the bound (`Cause.kept`; some only in bf16/fp16) is a finding: the compiled code does
    not round as the program asked, or makes a value non-finite that eager keeps finite."""

    name, judges, gives, reads = "kept_cause", ACCURACY, None, ("cause", "dtype")

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if kept_whatever_the_bound(facts.cause, _narrow(facts.dtype)):
            return f"{facts.cause} is a finding whatever the bound"
        return None


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
        return _record_unmeasured(facts) if facts.gradient_of is not None and cut else None


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


class ValueWithinBound(Rule):
    """A less accurate value whose culprit op is within its documented bound at every element measured: its error
    at the op is at most the bound, or it is the exact result of inputs moved within it (`judge.rounding_error`)."""

    name, judges, gives, reads, bounded = "value_within_bound", (Verdict.LESS_ACCURATE,), Verdict.WITHIN_ROUNDING, ("gradient_of", "rounding_error"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.gradient_of is not None or not record_within(facts.rounding_error, bounds):
            return None
        return describe(facts.rounding_error, bounds)

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        return _record_unmeasured(facts) if facts.gradient_of is None and facts.culprit is not None else None


class NonfiniteRest(Rule):
    """A non-finite value whose culprit is within its bound, where the rest of the program computed exactly from the
    target's culprit value is non-finite at every element the target made non-finite (`judge.nonfinite_rest`)."""

    name, judges, gives, reads, bounded = "nonfinite_rest", (Verdict.NONFINITE,), Verdict.WITHIN_ROUNDING, ("rounding_error", "nonfinite_rest"), True

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        if facts.nonfinite_rest is None or not record_within(facts.rounding_error, bounds):
            return None
        return f"{describe(facts.rounding_error, bounds)}; {facts.nonfinite_rest}"


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


RULES: tuple[Rule, ...] = (
    Amplified(),
    ReorderedReduction(),
    KeptCause(),
    GradientWithinBound(),
    FusedBackward(),
    ValueWithinBound(),
    NonfiniteRest(),
    PositionWithinBound(),
    EagerFailsToo(),
)


# how the backward's locator says that no op's backward alone is less accurate (`judge.gradient_analysis`)
FUSED_BACKWARD_LOCATED = "fallback (no op's backward alone"


def _record_unmeasured(facts: Analysis) -> str | None:
    """The culprit's rounding-error record, where an older numfuzz stored it without the target's side as the rule reads
    it. A record that is absent, or says why it was not measured, is as today's analysis leaves some: not stale."""
    record = facts.rounding_error
    if record is None or record.error or record.judgeable or record.stored.get("unmeasured"):
        return None
    return "the rounding-error record at the culprit"


def final_verdict(oracle: Verdict, facts: Analysis | None, bounds: Bounds) -> Judgement:
    """The verdict: the first rule in RULES that judges `oracle` and holds of `facts`; else the oracle's verdict."""
    if facts is None:
        return Judgement(oracle)
    for rule in RULES:
        if oracle not in rule.judges:
            continue
        why = rule.holds(facts, bounds)
        if why is not None:
            return Judgement(rule.gives or oracle, rule.name if rule.gives is not None else "", why)
    return Judgement(oracle)


def verdict_of(outcome: Outcome, bounds: Bounds) -> Verdict:
    """A live or stored outcome's verdict under `bounds`."""
    return final_verdict(outcome.oracle, outcome.analysis, bounds).verdict


def undecided(outcome: Outcome, bounds: Bounds) -> str:
    """Why today's rules cannot judge a stored outcome ("" where they can): it was stored before a rule that would
    judge its oracle verdict, lacks a fact that rule reads, and no rule decides it without that fact."""
    facts, oracle = outcome.analysis, outcome.oracle
    if outcome.rules_version >= RULES_VERSION or not (oracle.is_accuracy or oracle is Verdict.POSITION_DEPENDENT):
        return ""
    if facts is None:  # as today's analysis leaves some (a position it cannot part, say): the oracle's verdict, now as then
        return ""
    applicable = [rule for rule in RULES if oracle in rule.judges]
    if any(rule.holds(facts, bounds) is not None for rule in applicable):  # decided: benign, or a finding whatever the bound
        return ""
    for rule in applicable:
        if outcome.rules_version < rule.since:
            missing = rule.unmeasured(facts, bounds)
            if missing:
                return f"rule {rule.name} reads {missing}, which it does not record"
    return ""


def apply_rules(outcome: Outcome, bounds: Bounds) -> Outcome:
    """Set a freshly analysed outcome's verdict, rule and detail from its oracle verdict and facts (in place, and returned)."""
    found = final_verdict(outcome.oracle, outcome.analysis, bounds)
    outcome.verdict, outcome.rule = found.verdict, found.rule
    if found.rule:
        # a position check's own detail says where the positions part; the rule adds why that is rounding
        outcome.detail = f"{outcome.detail}; {found.why}" if found.rule == PositionWithinBound.name and outcome.detail else found.why
    return outcome


def _narrow(dtype: object) -> bool:
    try:
        return check_dtype(str(dtype)).mantissa_bits < FP32_MANTISSA
    except ValueError:  # no dtype recorded: keep it a finding
        return True
