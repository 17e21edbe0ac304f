"""Replaying a corpus on the installed versions: per group, which findings still reproduce, and whether that is as stated."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from numfuzz.corpus.case import Case, CaseError, recorded_outcome
from numfuzz.corpus.grouping import Group
from numfuzz.corpus.regression import statement
from numfuzz.corpus.store import load_case
from numfuzz.judge.execute import Outcome

Run = Callable[[Case], Outcome | str]  # an outcome, or why the case cannot run here


@dataclass
class Replayed:
    path: Path
    recorded: str  # the verdict the file records
    now: str  # the verdict here, or "skipped"
    reproduces: bool
    expected: bool | None  # what the file's statement predicts here; None: it says nothing about here
    note: str = ""
    stated: bool = False  # the file makes a statement (maybe silent about here)

    @property
    def as_stated(self) -> bool:
        """No surprise: as the statement predicts, or, unstated, still a finding."""
        if self.now == "skipped":
            return True
        if self.expected is None:
            return self.reproduces or self.stated  # a statement silent about here accepts either
        return self.reproduces == self.expected


@dataclass
class GroupReplay:
    group: Group
    cases: list[Replayed] = field(default_factory=list)

    @property
    def reproduced(self) -> int:
        return sum(c.reproduces for c in self.cases)

    @property
    def as_stated(self) -> bool:
        return all(c.as_stated for c in self.cases)


def replay_group(group: Group, run: Run, here: dict[str, Any]) -> GroupReplay:
    """Run each finding of `group` (its smallest version) here; `here` is this environment's provenance."""
    result = GroupReplay(group)
    for path in sorted(group.members.values()):
        try:
            case = load_case(path)
            stated = statement(case)
        except CaseError as exc:
            result.cases.append(Replayed(path, "?", "skipped", False, None, str(exc)))
            continue
        recorded = recorded_outcome(case).verdict.value
        expected = stated.holds_here(here) if stated is not None else None
        got = run(case)
        if isinstance(got, str):
            result.cases.append(Replayed(path, recorded, "skipped", False, expected, got))
            continue
        note = f"stated: reproduces on {stated.text()}" if stated is not None else ""
        result.cases.append(Replayed(path, recorded, got.verdict.value, got.verdict.is_finding, expected, note, stated is not None))
    return result
