"""Inside the module where the compiled model and eager part: the op, its line in the model's source, its cause.

The module's calls that the op table maps become a numfuzz program (`numfuzz.model.region`), with
the values eager gave them, and `numfuzz.check` judges it on the target as a campaign judges its own
programs: the culprit op by cutting, the cause, the rounding error against the ops' bounds. The
culprit node's captured call says where the model's source makes it. The program is a case like any
other: saved to a corpus, `replay`, `minimize`, `repro` and `corpus` take it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from numfuzz.check import CheckResult, check
from numfuzz.corpus.case import Case
from numfuzz.environment import provenance
from numfuzz.model.region import Region, extract_region
from numfuzz.targets import Target


@dataclass
class RegionCheck:
    """Where, inside a module, the target parts from eager: the module's mapped calls judged as a numfuzz program."""

    path: str  # the module ("" for the whole model)
    region: Region
    result: CheckResult

    @property
    def line(self) -> str:
        """The culprit's call in the model's source, where the analysis found a culprit."""
        culprit = self.result.culprit
        return self.region.sources[culprit.node] if culprit is not None and culprit.node < len(self.region.sources) else ""

    def describe(self) -> str:
        graph, result = self.region.graph, self.result
        where = self.path or "the model"
        lines = [f"inside {where}: {self.region.coverage.describe()}"]
        if self.region.cut:
            lines.append(f"  the region is cut around: {', '.join(sorted(self.region.cut))}")
        lines.append(f"  its {len(graph.nodes)} mapped ops as a numfuzz program, on the values eager gave them: {result.verdict.value}")
        culprit, facts = result.culprit, result.analysis
        if culprit is not None:
            lines.append(f"  the op: {culprit.op} ({culprit.dtype}), node {culprit.node}, located by {culprit.located}, at {self.line}")
        if facts is not None and facts.cause:
            lines.append(f"  its cause: {facts.cause}")
        return "\n".join(lines)

    def case(self, target_spec: str, model: str = "") -> Case:
        """The region as a corpus case under `target_spec`, its provenance naming the model, the module and each node's line."""
        made = {"model": model, "module": self.path, "sources": self.region.sources, "coverage": self.region.coverage.describe()}
        stamp = {**provenance(self.result.device), "created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "model_region": made}
        case = Case.from_tensors(self.region.graph, self.region.samples, target_spec, provenance=stamp)
        case.result = self.result.outcome.to_json()
        return case


def check_region(target: Target, fn: Callable, args: tuple, kwargs: dict[str, Any], path: str, device: str) -> RegionCheck | None:
    """The mapped region of `fn(*args, **kwargs)` judged on `target`; None where none of its calls maps."""
    region = extract_region(fn, args, kwargs)
    if region is None:
        return None
    return RegionCheck(path, region, check(region.graph, target, samples=region.samples, device=device))
