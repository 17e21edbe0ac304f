"""The minimisations in flight, as the campaign shows them: which finding, how far, how long left.

Workers send a progress message after each candidate (at most about one a second); the board
keeps the latest per finding and renders it for the progress bar and the log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from numfuzz.workers.messages import Progress


@dataclass
class Running:
    finding: str
    symptom: str
    deadline: float  # monotonic: the minimisation is stopped by then
    started: float = field(default_factory=time.monotonic)
    info: Progress | None = None  # the latest progress message


class MinimizeBoard:
    def __init__(self) -> None:
        self.running: dict[str, Running] = {}

    def start(self, finding: str, symptom: str, deadline: float) -> None:
        self.running[finding] = Running(finding, symptom, deadline)

    def shorten(self, finding: str, deadline: float) -> None:
        if finding in self.running:
            self.running[finding].deadline = min(self.running[finding].deadline, deadline)

    def update(self, msg: Progress) -> int:
        """Take a progress message; returns how many candidates it adds to the count."""
        run = self.running.get(msg.finding)
        if run is None:
            return 0
        before = run.info.candidates if run.info is not None else 0
        run.info = msg
        return max(msg.candidates - before, 0)

    def finish(self, finding: str) -> None:
        self.running.pop(finding, None)

    def line(self, finding: str, now: float | None = None) -> str:
        """One minimisation in words, for the log."""
        run = self.running.get(finding)
        if run is None:
            return ""
        now = time.monotonic() if now is None else now
        info = run.info
        if info is None:
            return f"minimising {finding[:8]} ({run.symptom}): starting, {max(run.deadline - now, 0):.0f} s left"
        what = {
            "confirm": "confirming the finding",
            "confirm-hang": f"confirming the hang at the full {info.seconds:g} s",
        }.get(info.stage)
        if what is None:
            verdict = info.verdict
            what = f"{info.candidates} candidates" + (f" (last: {verdict}, {'kept' if info.kept else 'rejected'})" if verdict else "")
        size = f"{info.nodes} of {info.from_nodes} ops" if info.from_nodes is not None else ""
        return f"minimising {finding[:8]} ({run.symptom}): {what}" + (f", {size}" if size else "") + f", {max(run.deadline - now, 0):.0f} s left"

    def text(self, now: float | None = None) -> str:
        """All of them, short, for the progress bar."""
        now = time.monotonic() if now is None else now
        parts = []
        for run in self.running.values():
            info = run.info
            size = f" {info.nodes}/{info.from_nodes} ops" if info is not None and info.from_nodes is not None else ""
            candidates = info.candidates if info is not None else 0
            parts.append(f"{run.finding[:8]} {run.symptom} #{candidates}{size} {max(run.deadline - now, 0):.0f}s left")
        return "minimising " + "; ".join(parts) if parts else ""
