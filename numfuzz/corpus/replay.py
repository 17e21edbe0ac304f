"""Replaying a corpus on the installed versions: per group, which findings still reproduce, and whether that is as stated.

Cases with a statement that no listed group holds (recorded as no finding, within rounding, or
never run, such as a report for a device this machine lacks) are replayed too, on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.grouping import Group, case_paths
from numfuzz.corpus.regression import reproduces, statement, upstream
from numfuzz.corpus.rejudge import current_outcome
from numfuzz.corpus.store import load_case
from numfuzz.judge.bounds import active_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict

Run = Callable[[Case], Outcome | str]  # an outcome, or why the case cannot run here
NOT_RUN = "not run"  # what a case records that was written without a result (a device it could not run on)


@dataclass
class Replayed:
    path: Path
    recorded: str  # the verdict the file records, or NOT_RUN
    now: str  # the verdict here, or "skipped"
    reproduces: bool  # the verdict here reproduces the recorded one (regression.reproduces)
    expected: bool | None  # what the file's statement predicts here; None: it says nothing about here
    note: str = ""
    stated: bool = False  # the file makes a statement (maybe silent about here)
    upstream: str = ""  # the upstream issue the case was written from, "pytorch#183605"

    @property
    def as_stated(self) -> bool:
        """No surprise: as the statement predicts, or, unstated, still a finding."""
        if self.now == "skipped":
            return True
        if self.expected is None:
            return self.reproduces or self.stated  # a statement silent about here accepts either
        return self.reproduces == self.expected

    @property
    def expectation(self) -> str:
        """What the statement predicts here, in words ("" when it says nothing)."""
        if self.expected is None:
            return ""
        benign = self.recorded not in (NOT_RUN, "") and not Verdict(self.recorded).is_finding
        if benign:
            return f"expected {'' if self.expected else 'not '}{self.recorded} here"
        return f"expected {'a finding' if self.expected else 'no finding'} here"


@dataclass
class GroupReplay:
    group: Group | None  # None: the stated cases no listed group holds
    cases: list[Replayed] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.group.title if self.group is not None else "other stated cases (recorded as no finding, or not run)"

    @property
    def reproduced(self) -> int:
        return sum(c.reproduces for c in self.cases)

    @property
    def as_stated(self) -> bool:
        return all(c.as_stated for c in self.cases)


def replay_case(path: Path, run: Run, here: dict[str, Any]) -> Replayed:
    """Run one case here (`here`: this environment's provenance); a case stated for another device is skipped."""
    case = load_case(path)
    stated, source = statement(case), upstream(case)
    # what was recorded, as today's rules judge it under the bounds in force (`corpus.rejudge`), as the listing does
    recorded = current_outcome(case, active_bounds()).verdict if case.result is not None else None
    common = {
        "path": path,
        "recorded": NOT_RUN if recorded is None else recorded.value,
        "stated": stated is not None,
        "upstream": source.issue if source else "",
    }
    device = str(here.get("device", ""))
    if stated is not None and stated.device and not device.startswith(stated.device):
        where = "" if stated.device != "cpu" else " (--device cpu runs it)"
        return Replayed(now="skipped", reproduces=False, expected=None, note=f"needs {stated.device}{where}", **common)
    expected = stated.holds_here(here) if stated is not None else None
    got = run(case)
    if isinstance(got, str):
        return Replayed(now="skipped", reproduces=False, expected=expected, note=got, **common)
    note = f"stated: reproduces on {stated.text()}" if stated is not None else ""
    return Replayed(now=got.verdict.value, reproduces=reproduces(recorded, got.verdict), expected=expected, note=note, **common)


def replay_group(group: Group, run: Run, here: dict[str, Any]) -> GroupReplay:
    """Run each finding of `group` (its smallest version) here."""
    return GroupReplay(group, [replay_case(path, run, here) for path in sorted(group.members.values())])


def other_stated(directory: Path, replayed: set[Path]) -> list[Path]:
    """The cases under `directory` that make a statement and are not in `replayed` (unreadable ones are left to the grouping's report)."""
    found = []
    for path in case_paths(directory):
        if path in replayed:
            continue
        try:
            if "reproduces" in load_case(path).extra:
                found.append(path)
        except CaseError:
            continue
    return found


def check_statements(paths: list[Path]) -> None:
    """CaseError, naming the file, for the first readable case whose `reproduces` or `upstream` field is malformed."""
    for path in paths:
        try:
            case = load_case(path)
        except CaseError:
            continue  # unreadable: the grouping reports it
        try:
            statement(case)
            upstream(case)
        except CaseError as exc:
            raise CaseError(f"{path}: {exc}") from None
