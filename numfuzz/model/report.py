"""A model's verdict in words: the outputs' table, then each module judged alone, and where the two part."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numfuzz.model.check import ModelResult


def _why(cause: str, known: str) -> str:
    if cause == "cast_dropped":
        return f", an explicit cast dropped ({'known issue ' + known if known else 'new'})"
    return ""


def _output_lines(result: ModelResult) -> list[str]:
    from numfuzz.judge.oracle import bits_lost

    width = max([len("output"), *(len(_label(result, o.index)) for o in result.outputs)]) + 2
    head = f"{'output':<{width}}{'dtype':<6}{'eager max ulp':>15}{'target max ulp':>16}{'eager max abs':>15}{'target max abs':>16}{'bits lost':>11}  verdict"
    lines = [head]
    for o in result.outputs:
        name, said = _label(result, o.index), o.verdict
        if o.index in result.fused:
            said = "within_rounding (fused_backward: at most 2 bits lost, how the backward is fused)"
        lost = bits_lost(o) if o.verdict in ("less_accurate", "nonfinite") else 0.0
        errors = f"{o.eager_max_ulp:>15.4g}{o.target_max_ulp:>16.4g}{o.eager_max_abs:>15.4g}{o.target_max_abs:>16.4g}{lost:>11.3g}"
        lines.append(f"{name:<{width}}{o.dtype:<6}{errors}  {said}")
    return lines


def _label(result: ModelResult, index: int) -> str:
    return result.labels[index] if index < len(result.labels) else str(index)


def _module_lines(result: ModelResult) -> list[str]:
    lines = ["", "each module alone, compiled from eager's inputs to it, against its float64 reference on them:"]
    lines.append(f"{'module':<48}{'eager max ulp':>15}{'target max ulp':>16}  verdict")
    for m in result.modules:
        name = ("  " * (m.depth - 1) + m.path)[:47]
        said = m.verdict.value + (f" ({m.detail})" if m.detail else "") + _why(m.cause, m.known)
        lines.append(f"{name:<48}{m.eager_ulp:>15.4g}{m.target_ulp:>16.4g}  {said}")
    return lines


def explain(result: ModelResult) -> str:
    """Everything `numfuzz model` prints: the verdict, the outputs, the modules, where the two part."""
    head = f"{result.target}: {result.verdict.value}" + _why(result.cause, result.known)
    if result.detail:
        head += f": {result.detail}"
    lines = [head, *_output_lines(result)]
    if result.graphs > 1:
        lines.append(f"note: Dynamo broke the model into {result.graphs} graphs; after a break the reference runs without the model's casts")
    if result.modules:
        lines += _module_lines(result)
        parts = result.parts_at
        if parts is not None:
            lines.append(f"\nthey part at {parts.path} ({parts.kind}): the first module, in call order, worse than eager alone while none inside it is")
        elif result.verdict.is_finding and not result.known:
            lines.append("\nno module alone is worse than eager: the difference comes from fusing across modules")
    return "\n".join(lines)
