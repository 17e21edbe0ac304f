"""Human-readable tables of outcomes: the CLI prints them, `numfuzz.check` explains with them."""

from __future__ import annotations

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.execute import AT_TEXT, Outcome
from numfuzz.judge.nonfinite_class import changes_text
from numfuzz.judge.rounding_error_text import describe


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x == x and abs(x) != float("inf") else str(x)


def outcome_table(outcome: Outcome, outputs: int | None = None, bounds: Bounds | None = None) -> str:
    """The error table; with `outputs` (the graph's count) the values judged after them are labelled as input gradients;
    with `bounds`, the culprit's rounding error against them."""
    lines = []
    if outcome.outputs:
        lines.append(f"{'output':<8}{'dtype':<6}{'who':<8}{'max ulp':>10}{'mean ulp':>10}{'max abs':>11}{'max rel':>11}  worse/better  verdict")
        for o in outcome.outputs:
            if outputs is not None and o.index >= outputs and not o.elements:
                continue  # an integer input's empty gradient
            name = str(o.index) if outputs is None or o.index < outputs else f"dx{o.index - outputs}"
            lines.append(
                f"{name:<8}{o.dtype:<6}{'eager':<8}{_fmt(o.eager_max_ulp):>10}{_fmt(o.eager_mean_ulp):>10}{_fmt(o.eager_max_abs):>11}{_fmt(o.eager_max_rel):>11}"
            )
            lines.append(
                f"{'':<8}{'':<6}{'target':<8}{_fmt(o.target_max_ulp):>10}{_fmt(o.target_mean_ulp):>10}{_fmt(o.target_max_abs):>11}{_fmt(o.target_max_rel):>11}"
                f"  {o.worse}/{o.better:<10}  {o.verdict}"
            )
            if o.class_lost:
                lines.append(f"{'':<14}{changes_text(o.class_changes)}")
    at = " " + AT_TEXT[outcome.at] if outcome.at in AT_TEXT else ""
    lines.append(f"verdict: {outcome.verdict.value}{at}" + (f" ({outcome.detail})" if outcome.detail else ""))
    second = outcome.second_size or {}
    if second:
        shapes = " ".join(str(tuple(s)) for s in second.get("shapes", []))
        again = {True: "recompiled", False: "no recompile", None: "recompile unknown"}[second.get("recompiled")]
        lines.append(f"second size: {shapes}, {again}" + ("" if at else f", {second.get('verdict')}"))
    if outcome.rule:
        lines.append(f"rule: {outcome.rule} (the oracle said {outcome.oracle.value})")
    facts = outcome.analysis
    if facts is not None and facts.cause and not facts.ill_conditioned:
        c = facts.culprit
        where = f"t{c.node} = {c.op} ({c.dtype})" if c is not None else f"{facts.op} ({facts.dtype})"
        lines.append(f"starts at: {where}")
        lines.append(f"cause: {facts.cause}" + (f" (the gradient of input x{facts.gradient_of})" if facts.gradient_of is not None else ""))
        lines.extend(f"  {line}" for line in facts.evidence)
        if facts.rounding_error is not None and bounds is not None:
            lines.append(f"  {describe(facts.rounding_error, bounds)}")
    return "\n".join(lines)
