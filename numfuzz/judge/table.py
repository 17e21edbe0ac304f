"""Human-readable tables of outcomes: the CLI prints them, `numfuzz.check` explains with them."""

from __future__ import annotations

from numfuzz.judge.execute import Outcome


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x == x and abs(x) != float("inf") else str(x)


def outcome_table(outcome: Outcome, outputs: int | None = None) -> str:
    """The error table; with `outputs` (the graph's count) the values judged after them are labelled as input gradients."""
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
    at = " at the second size" if outcome.at == "second_size" else ""
    lines.append(f"verdict: {outcome.verdict.value}{at}" + (f" ({outcome.detail})" if outcome.detail else ""))
    second = outcome.second_size or {}
    if second:
        shapes = " ".join(str(tuple(s)) for s in second.get("shapes", []))
        again = {True: "recompiled", False: "no recompile", None: "recompile unknown"}[second.get("recompiled")]
        lines.append(f"second size: {shapes}, {again}" + ("" if at else f", {second.get('verdict')}"))
    analysis = outcome.analysis or {}
    if analysis.get("cause") and analysis.get("cause") != "amplified":
        culprit = analysis.get("culprit") or {}
        where = f"t{culprit['node']} = {culprit['op']} ({culprit['dtype']})" if culprit else f"{analysis.get('op')} ({analysis.get('dtype')})"
        lines.append(f"starts at: {where}")
        lines.append(f"cause: {analysis['cause']}" + (f" (the gradient of input x{analysis['gradient_of']})" if "gradient_of" in analysis else ""))
        lines.extend(f"  {line}" for line in analysis.get("evidence", []))
    return "\n".join(lines)
