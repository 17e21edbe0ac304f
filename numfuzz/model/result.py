"""What `numfuzz.check_model` returns: the model's verdict, each module's, and the words that say them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numfuzz.judge.cause import CAST_DROPPED
from numfuzz.judge.oracle import OutputErrors, bits_lost
from numfuzz.judge.verdicts import Verdict
from numfuzz.model.parting import describe_partings


@dataclass
class ModuleVerdict:
    """One submodule judged alone on eager's inputs to it."""

    path: str  # as named_modules names it: "model.layers.0.mlp"
    kind: str  # its class
    depth: int
    verdict: Verdict
    outputs: list[OutputErrors] = field(default_factory=list)
    detail: str = ""  # what the target raised, or the global modes it left unlike eager (`state`)
    cause: str = ""  # "cast_dropped": the target computes the module with its casts as no-ops
    known: str = ""  # the known issue that explains it

    @property
    def is_finding(self) -> bool:
        return self.verdict.is_finding and not self.known

    @property
    def eager_ulp(self) -> float:
        return max((o.eager_max_ulp for o in self.outputs), default=0.0)

    @property
    def target_ulp(self) -> float:
        return max((o.target_max_ulp for o in self.outputs), default=0.0)


@dataclass
class ModelResult:
    target: str
    verdict: Verdict
    outputs: list[OutputErrors]
    modules: list[ModuleVerdict]
    graphs: int  # graphs Dynamo captured for the reference: more than one means a graph break
    captured_ops: list[str]  # the captured calls, in order (torch-level: "linear", "silu", "to", ...)
    detail: str = ""  # what the target raised, when it did, or the global modes it left unlike eager (`state`)
    cause: str = ""
    known: str = ""
    labels: list[str] = field(default_factory=list)  # what each judged output is: "output 0", or "loss" and each parameter's gradient
    rules: dict[int, Any] = field(default_factory=dict)  # output index -> the rule (`judge.rules.Judgement`) that gave its verdict, where one did
    coverage: Any = None  # numfuzz.model.coverage.Coverage: how many of the captured calls map onto the op table
    region_check: Any = None  # numfuzz.model.region_check.RegionCheck: inside the module where they part, the op and its line
    unextracted: str = ""  # why the region could not be extracted, where it could not
    partings: Any = None  # numfuzz.model.parting: the ops where the target first computes other bits than eager, or why not

    @property
    def is_finding(self) -> bool:
        """The compiled model, or a module of it compiled alone, worse than eager in a way no known issue explains."""
        return (self.verdict.is_finding and not self.known) or self.parts_at is not None

    @property
    def parts_at(self) -> ModuleVerdict | None:
        """The first module, in call order, worse than eager alone while none of the modules inside it is: where they part."""
        worse = [m for m in self.modules if m.is_finding]
        inner = [m for m in worse if not any(o.path.startswith(m.path + ".") for o in worse)]
        return inner[0] if inner else None

    def label(self, index: int) -> str:
        """What judged output `index` is: "loss", "the gradient of ...", or its position."""
        return self.labels[index] if index < len(self.labels) else str(index)

    def explain(self) -> str:
        return explain(self)


def _why(cause: str, known: str) -> str:
    if cause == CAST_DROPPED.name:
        return f", an explicit cast dropped ({'known issue ' + known if known else 'new'})"
    return ""


def _output_lines(result: ModelResult) -> list[str]:
    width = max([len("output"), *(len(result.label(o.index)) for o in result.outputs)]) + 2
    head = f"{'output':<{width}}{'dtype':<6}{'eager max ulp':>15}{'target max ulp':>16}{'eager max abs':>15}{'target max abs':>16}{'bits lost':>11}  verdict"
    lines = [head]
    for o in result.outputs:
        name, said = result.label(o.index), o.verdict
        if o.index in result.rules:
            said = f"{o.verdict} ({result.rules[o.index].rule}: {result.rules[o.index].why})"
        lost = bits_lost(o) if o.verdict in ("less_accurate", "nonfinite", "nonfinite_class", "within_rounding") else 0.0
        errors = f"{o.eager_max_ulp:>15.4g}{o.target_max_ulp:>16.4g}{o.eager_max_abs:>15.4g}{o.target_max_abs:>16.4g}{lost:>11.3g}"
        lines.append(f"{name:<{width}}{o.dtype:<6}{errors}  {said}")
    return lines


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
    if result.coverage is not None:
        lines.append(f"captured: {result.coverage.describe()}")
    if result.graphs > 1:
        lines.append(f"note: Dynamo broke the model into {result.graphs} graphs; after a break the reference runs without the model's casts")
    if result.modules:
        lines += _module_lines(result)
        parts = result.parts_at
        if parts is not None:
            lines.append(f"\nthey part at {parts.path} ({parts.kind}): the first module, in call order, worse than eager alone while none inside it is")
        elif result.verdict.is_finding and not result.known:
            lines.append("\nno module alone is worse than eager: the difference comes from fusing across modules")
    if result.partings is not None:
        lines += ["", describe_partings(result.partings, result.target)]
    if result.region_check is not None:
        lines += ["", result.region_check.describe()]
    elif result.unextracted:
        lines += ["", f"the region inside could not be extracted: {result.unextracted}"]
    return "\n".join(lines)
