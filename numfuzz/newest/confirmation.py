"""What the newest interpreters say of each group that would be listed as new: it reproduces there, it is fixed there,
it shows something else there, or nothing could tell.

A group is confirmed on its smallest case (its minimised one, once minimised). An answer that came through the
compiler behind the case's target (Inductor for Thunder's torchcompile executor, on a torch Thunder does not import
on) counts only when the same run reproduces the finding on this interpreter's versions: otherwise the finding is
the front end's, and the newest torch cannot speak for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Sequence

from packaging.version import InvalidVersion, Version

from numfuzz.corpus.store import load_case
from numfuzz.judge.verdicts import ACCURACY_SYMPTOMS, Verdict
from numfuzz.newest.interpreters import AnswerCache, Interpreter, NewestError, replay_under, this_interpreter
from numfuzz.newest.replay_here import SKIPPED, ReplayedHere


class State(str, Enum):
    REPRODUCES = "reproduces"
    FIXED = "fixed"
    CHANGED = "changed"  # a finding of another kind there
    NOT_RUN = "not run"


def _kind(symptom: str) -> str:
    """What must stay the same for a finding to reproduce: the values' kind of error, or the crash's class."""
    return "accuracy" if symptom.partition(":")[0] in ACCURACY_SYMPTOMS else symptom


def _reproduces(recorded_symptom: str, row: ReplayedHere) -> bool:
    return row.now != SKIPPED and Verdict(row.now).is_finding and _kind(row.symptom) == _kind(recorded_symptom)


@dataclass(frozen=True)
class Answer:
    interpreter: Interpreter
    state: State
    row: ReplayedHere | None = None
    note: str = ""  # why it did not run, or what it showed instead

    @property
    def where(self) -> str:
        through = f" (through {self.row.target})" if self.row is not None and self.row.through else ""
        return f"{self.interpreter.label}{through}"


def answer_of(interpreter: Interpreter, recorded_symptom: str, row: ReplayedHere | None, here: ReplayedHere | None) -> Answer:
    """One interpreter's answer for a finding with `recorded_symptom`; `here`: the same case through the compiler behind, on this interpreter."""
    if row is None or row.now == SKIPPED:
        return Answer(interpreter, State.NOT_RUN, row, row.note if row is not None else "not asked")
    if row.through and (here is None or not _reproduces(recorded_symptom, here)):
        why = "not checked here" if here is None or here.now == SKIPPED else f"does not reproduce through {row.target} on this torch either: the front end's"
        return Answer(interpreter, State.NOT_RUN, row, why)
    if not Verdict(row.now).is_finding:
        return Answer(interpreter, State.FIXED, row)
    if _reproduces(recorded_symptom, row):
        return Answer(interpreter, State.REPRODUCES, row)
    return Answer(interpreter, State.CHANGED, row, f"now {row.symptom}" + (f" ({row.fingerprint[:80]})" if row.fingerprint else ""))


def _ran_by(answer: Answer) -> tuple[str, Version]:
    """What decided the answer, and its version: Thunder where its own target ran, else torch (Inductor, or through it)."""
    thunder = answer.row is not None and answer.row.target.startswith("thunder") and not answer.row.through
    name, version = ("thunder", answer.interpreter.thunder) if thunder else ("torch", answer.interpreter.torch)
    try:
        return name, Version(version)
    except InvalidVersion:
        return name, Version("0")


def _newer(reproduced: Answer, fixed: Answer) -> bool:
    """Does `reproduced` come from a newer version of what ran `fixed`?"""
    (name, version), (other, than) = _ran_by(reproduced), _ran_by(fixed)
    return name == other and version > than


@dataclass
class Confirmation:
    answers: list[Answer] = field(default_factory=list)

    @property
    def state(self) -> State:
        """Fixed where it could run wins, a maintainer on the newest would not see it; unless it reproduces on a newer
        version of what ran it (an Inductor case fixed on torch 2.11 and back on 2.15.0 is a regression)."""
        reproduced = [a for a in self.answers if a.state is State.REPRODUCES]
        if any(a.state is State.FIXED and not any(_newer(r, a) for r in reproduced) for a in self.answers):
            return State.FIXED
        for state in (State.REPRODUCES, State.CHANGED):
            if any(a.state is state for a in self.answers):
                return state
        return State.NOT_RUN

    def text(self, refusal: bool = False) -> str:
        """The listing's words: `fixed in torch 2.15.0 (through inductor)`, `reproduces on torch 2.15.0, thunder 0.2.7.dev0 (torch 2.11.0)`;
        of a refusal (`refusal`): `supported in ...`, `still refuses on ...`."""
        by = {s: [a for a in self.answers if a.state is s] for s in State}
        fixed, reproduces = ("supported in ", "still refuses on ") if refusal else ("fixed in ", "reproduces on ")
        if self.state is State.NOT_RUN:
            return "unconfirmed: " + "; ".join(f"{a.interpreter.label}: {a.note}" for a in self.answers)
        if self.state is State.FIXED:
            still = ", ".join(a.where for a in by[State.REPRODUCES])
            return fixed + ", ".join(a.where for a in by[State.FIXED]) + (f"; still on {still}" if still else "")
        if self.state is State.CHANGED:
            return "changed: " + "; ".join(f"on {a.where} {a.note}" for a in by[State.CHANGED])
        older = ", ".join(a.where for a in by[State.FIXED])  # fixed there, back on a newer version
        return reproduces + ", ".join(a.where for a in by[State.REPRODUCES]) + (f"; not on {older}" if older else "")


@dataclass(frozen=True)
class Asked:
    """A group's smallest case, as the interpreters are asked about it."""

    title: str
    path: Path
    case_hash: str
    symptom: str  # the finding's recorded symptom


def asked_about(title: str, path: Path, symptom: str) -> Asked:
    """What the interpreters are asked about a finding stored at `path`; CaseError where it does not load."""
    return Asked(title, Path(path), load_case(path).content_hash(), symptom)


def confirm(
    asked: Sequence[Asked], interpreters: Sequence[Interpreter], root: Path | None, extra: Sequence[str] = ()
) -> tuple[dict[str, Confirmation], list[str]]:
    """Each asked finding (by title) confirmed on `interpreters`, answers kept in `root`'s cache; also one line per interpreter that failed."""
    problems: list[str] = []
    cache = AnswerCache(root)
    rows = {i: _ask(cache, i, asked, False, extra, problems) for i in interpreters}
    through = [a for a in asked if any(rows[i].get(a.title) is not None and rows[i][a.title].through for i in interpreters)]
    here_rows = _ask(cache, this_interpreter(), through, True, extra, problems) if through else {}
    cache.save()
    found = {a.title: Confirmation([answer_of(i, a.symptom, rows[i].get(a.title), here_rows.get(a.title)) for i in interpreters]) for a in asked}
    return found, problems


def _ask(cache: AnswerCache, interpreter: Interpreter, asked: Sequence[Asked], through: bool, extra: Sequence[str], problems: list[str]) -> dict:
    """title -> the interpreter's row for each asked case: from the cache, else asked now (one process for all)."""
    keys = {a.title: cache.key(a.case_hash, interpreter, through) for a in asked}
    missing = [a for a in asked if cache.get(keys[a.title]) is None]
    if missing:
        try:
            for a, row in zip(missing, replay_under(interpreter, [a.path for a in missing], through, extra)):
                cache.put(keys[a.title], row)
        except NewestError as exc:
            problems.append(str(exc))
    return {a.title: cache.get(keys[a.title]) for a in asked}
