"""What compiler code a campaign has reached: lines of the compilers' Python and shapes of generated kernels, over time.

Workers trace a share of cases (`numfuzz.workers.compiler_reach`) and send the lines they had
not reached before; this unions them over every worker and run of the campaign, and keeps the
trend (lines and kernel shapes against graphs and seconds) that `fuzzer_stats`, the progress
line and the report's plot show, and per op the lines first reached by a case using it. A
campaign whose trend has flattened keeps drawing programs that run compiler code it has run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

TREND_POINTS = 400  # the trend keeps at most this many points, thinned evenly


@dataclass
class CompilerReach:
    lines: dict[str, set[int]] = field(default_factory=dict)  # file -> lines reached
    shapes: set[str] = field(default_factory=set)  # kernel shapes generated
    traced: int = 0  # cases traced
    by_op: Counter = field(default_factory=Counter)  # op -> lines first reached by a case using it
    trend: list[tuple[int, float, int, int]] = field(default_factory=list)  # (graphs, seconds, lines, shapes)
    last_new_graph: int = 0  # the graph count when a traced case last reached a new line or shape
    lines_unsaved: bool = field(default=False, compare=False)  # lines reached since the journal last wrote them

    @property
    def line_count(self) -> int:
        return sum(len(v) for v in self.lines.values())

    def record(self, reach: dict[str, Any] | None, ops: list[str], graphs: int, seconds: float) -> int:
        """One traced case's reply (`{"lines": {file: [line, ...]}, "shapes": [...]}`); returns the lines and kernel
        shapes new to the campaign."""
        if not isinstance(reach, dict):
            return 0
        self.traced += 1
        new = 0
        for name, numbers in (reach.get("lines") or {}).items():
            known = self.lines.setdefault(str(name), set())
            fresh = {int(n) for n in numbers} - known
            known |= fresh
            new += len(fresh)
        self.lines_unsaved = self.lines_unsaved or new > 0
        new_shapes = {str(s) for s in reach.get("shapes") or ()} - self.shapes
        self.shapes |= new_shapes
        for op in set(ops) if new else ():
            self.by_op[op] += new
        if new or new_shapes or not self.trend:
            self.last_new_graph = graphs
            self._point(graphs, seconds)
        return new + len(new_shapes)

    def _point(self, graphs: int, seconds: float) -> None:
        self.trend.append((graphs, round(seconds, 1), self.line_count, len(self.shapes)))
        if len(self.trend) > TREND_POINTS:  # keep the first and the last, thin the rest
            last = self.trend[-1]
            del self.trend[1::2]
            if self.trend[-1] != last:
                self.trend.append(last)

    def rows(self, graphs: int) -> dict[str, Any]:
        """Its `fuzzer_stats` lines (none while nothing was traced)."""
        if not self.traced:
            return {}
        return {
            "compiler_lines": self.line_count,
            "compiler_files": len(self.lines),
            "kernel_shapes": len(self.shapes),
            "traced_cases": self.traced,
            "graphs_since_new_code": graphs - self.last_new_graph,
        }

    def postfix(self) -> str:
        return f", {self.line_count} compiler lines" if self.traced else ""

    def lines_json(self) -> dict[str, list[int]]:
        return {name: sorted(numbers) for name, numbers in sorted(self.lines.items())}

    def to_json(self, with_lines: bool = True) -> dict[str, Any]:
        """Everything, or without the lines (the journal writes those to a file of their own, when they change)."""
        return {
            **({"lines": self.lines_json()} if with_lines else {}),
            "shapes": sorted(self.shapes),
            "traced": self.traced,
            "by_op": dict(sorted(self.by_op.items())),
            "trend": [list(point) for point in self.trend],
            "last_new_graph": self.last_new_graph,
        }

    def restore_lines(self, data: Any) -> None:
        """The lines as `lines_json` wrote them (a resumed campaign's)."""
        if isinstance(data, dict):
            self.lines = {str(k): {int(n) for n in v} for k, v in data.items()}

    @staticmethod
    def from_json(data: Any) -> CompilerReach:
        if not isinstance(data, dict):
            return CompilerReach()
        return CompilerReach(
            lines={str(k): {int(n) for n in v} for k, v in (data.get("lines") or {}).items()},
            shapes={str(s) for s in data.get("shapes") or ()},
            traced=int(data.get("traced", 0)),
            by_op=Counter({str(k): int(v) for k, v in (data.get("by_op") or {}).items()}),
            trend=[(int(g), float(s), int(n), int(k)) for g, s, n, k in data.get("trend") or ()],
            last_new_graph=int(data.get("last_new_graph", 0)),
        )
