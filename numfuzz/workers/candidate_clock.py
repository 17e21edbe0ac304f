"""How long an isolated candidate may run before it counts as hung.

The campaign's `--case-timeout` is generous (it must cover a slow compile on a loaded machine),
and minimising a hang pays it for every candidate that still hangs. A candidate is a piece of a
program that already ran on this target, so its fair time is known: a few times the median of
the runs of that target that finished, floored so that a noisy machine does not turn a slow
compile into a hang. A worker's first run also loads the compiler's code, so fresh workers have
their own median. The minimised hang is confirmed once at the full `--case-timeout`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from numfuzz.workers.defaults import FIRST_CASE_GRACE_S, HANG_FACTOR, HANG_FLOOR_S

KEEP = 50  # observations of each kind; the median of the latest is what counts


@dataclass
class CandidateClock:
    ceiling: float  # the campaign's --case-timeout: a candidate never gets longer than that
    warm: list[float] = field(default_factory=list)  # seconds of finished runs on warm workers
    cold: list[float] = field(default_factory=list)  # ... on a fresh worker's first run

    def observe(self, seconds: float, fresh: bool) -> None:
        kept = self.cold if fresh else self.warm
        kept.append(seconds)
        del kept[:-KEEP]

    def timeout(self, fresh: bool = False) -> float:
        """Seconds for the next candidate, on a fresh worker or a warm one."""
        if fresh:
            if self.cold:
                return _clamp(HANG_FACTOR * statistics.median(self.cold), self.ceiling + FIRST_CASE_GRACE_S)
            return self.timeout(False) + self.fresh_extra()  # nothing measured: the campaign's own grace
        if self.warm:
            return _clamp(HANG_FACTOR * statistics.median(self.warm), self.ceiling)
        return self.ceiling

    def fresh_extra(self) -> float:
        """Seconds a fresh worker's first run gets beyond a warm one's."""
        if self.cold and self.warm:
            return max(self.timeout(True) - self.timeout(False), 0.0)
        return FIRST_CASE_GRACE_S

    def to_json(self) -> dict[str, Any]:
        return {"ceiling": self.ceiling, "warm": [round(s, 3) for s in self.warm], "cold": [round(s, 3) for s in self.cold]}

    @staticmethod
    def from_json(data: dict[str, Any] | None, ceiling: float) -> CandidateClock:
        data = data or {}
        return CandidateClock(ceiling, [float(s) for s in data.get("warm", [])][-KEEP:], [float(s) for s in data.get("cold", [])][-KEEP:])


def _clamp(seconds: float, ceiling: float) -> float:
    return min(max(seconds, HANG_FLOOR_S), ceiling)
