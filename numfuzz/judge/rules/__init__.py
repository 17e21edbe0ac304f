"""THE verdict: the oracle's verdict, then the first of the named rules below that holds of the analysis's facts.

`final_verdict(oracle, facts, bounds)` is the one function that decides. It is pure: the same
verdict wherever it is asked, live after an analysis (`judge.analysis`), for a stored case when
a corpus is listed or a campaign dedupes (`corpus.grouping`, `campaign.dedupe`), by the
minimiser's predicate (`reduce.minimize`) and in the issue text. The oracle's own verdict is kept
in the outcome (`Outcome.oracle`), and the facts never depend on the bounds, so a case judged
again under a tighter or looser `--bounds` file gets what a live run under that file would give.

The rules, in order (each class states its rule in its docstring: `rules.values`, `rules.gradients`, `rules.nonfinite`):

1. amplified                -- the difference is worse nowhere it starts (the cause `ill_conditioned`): amplified downstream.
2. eager_no_correct_bits    -- eager's largest error is as large as the output's largest value: no correct bit, noise.
3. reordered_reduction      -- a non-finite sum or product that eager makes too in another order.
4. overflows_too            -- a non-finite value where eager's output overflows too, the target's only
                               where eager's value is within a binade of the overflow: its boundary moved.
5. domain_edge              -- a non-finite value the culprit gives exactly at inputs within their rounding:
                               its domain's edge, reached by a value a fused kernel did not round.
6. kept_cause               -- a dropped cast, an emulated rounding, a non-finite intermediate, or a
                               narrow accumulator: a finding whatever the bound.
7. subgradient              -- a gradient that parts from eager's only where its culprit has no derivative,
                               between the one-sided derivatives there: another subgradient (`judge.kinks`).
8. nan_unreached            -- a gradient's non-finite class lost only where the non-finite inputs do not reach it.
9. gradient_within_bound    -- a gradient whose culprit's backward is within its bound.
10. fused_backward          -- a gradient no op's backward alone makes less accurate, at most 2 bits
                               worse: how the backward is fused.
11. gradient_abs_no_worse   -- a gradient whose largest absolute error is no larger than eager's: its
                               ULPs are lost at elements near zero, rounding of a sum.
12. value_within_bound      -- a value whose culprit op is within its bound.
13. ill_conditioned_culprit -- a value beyond its culprit's bound only where the op's condition is
                               infinite or as large as its dtype's precision: the op amplifies.
14. nonfinite_rest          -- a non-finite value that the exact rest of the program makes from a
                               culprit value within its bound.
15. class_rest              -- a NaN or inf that eager and float64 agree on, lost (nonfinite_class) where the exact
                               rest of the program gives the target's class from a culprit value within its bound;
                               an op that itself loses it (the cause nonfinite_dropped) is kept by kept_cause.
16. position_within_bound   -- two positions that part at an op within its bound at both.
17. eager_fails_too         -- eager's own value at the culprit is far outside the op's bound as
                               well: the formula is unstable whoever computes it.

Where none holds, the oracle's verdict stands.

A stored outcome older than a rule (`Outcome.rules_version` below its `since`) may lack a fact the
rule reads: `undecided` says which, where no rule decides the outcome without it. A corpus listing
shows such a finding as stale rather than new (`corpus.rejudge`).
"""

from __future__ import annotations

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import RULES_VERSION, Analysis
from numfuzz.judge.rules.gradients import FUSED_BACKWARD_LOCATED, FusedBackward, GradientAbsNoWorse, GradientWithinBound, NanUnreached, Subgradient
from numfuzz.judge.rules.nonfinite import ClassRest, DomainEdge, NonfiniteRest, OverflowsToo, ReorderedReduction
from numfuzz.judge.rules.rule import Judgement, Rule
from numfuzz.judge.rules.values import Amplified, EagerFailsToo, EagerNoCorrectBits, IllConditionedCulprit, KeptCause, PositionWithinBound, ValueWithinBound
from numfuzz.judge.verdicts import Verdict

__all__ = ["FUSED_BACKWARD_LOCATED", "RULES", "Judgement", "Rule", "apply_rules", "final_verdict", "undecided", "verdict_of"]

RULES: tuple[Rule, ...] = (
    Amplified(),
    EagerNoCorrectBits(),
    ReorderedReduction(),
    OverflowsToo(),
    DomainEdge(),
    KeptCause(),
    Subgradient(),
    NanUnreached(),
    GradientWithinBound(),
    FusedBackward(),
    GradientAbsNoWorse(),
    ValueWithinBound(),
    IllConditionedCulprit(),
    NonfiniteRest(),
    ClassRest(),
    PositionWithinBound(),
    EagerFailsToo(),
)


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
