"""Findings under a folder, folded by root cause: one group per root cause, its worst severity and smallest case.

A finding's group is its `GroupKey` (`numfuzz.corpus.group_key`): the known upstream issue it
matches, the mechanism it shows, else its signature's fold (target, cause, op). Groups are listed
new first, then known ones; within each, by severity. Each version's verdict is the verdict
function's (`numfuzz.judge.rules.final_verdict`) on its stored oracle verdict and facts, under the
bounds in force: a group whose every finding is benign (`within_rounding`, `eager_unstable`) is
kept but not listed unless asked for (`listed(..., everything=True)`); a target's own refusals (`unsupported`) are
listed after the known, never as new. Groups are computed from the stored data only, so old
case files group too, and by today's rules: each case's outcome and signature are derived again from
what it stores (`corpus.rejudge`), and a finding a rule newer than its record cannot judge is stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.group_key import GroupKey
from numfuzz.corpus.known import KnownIssue, load_known
from numfuzz.corpus.rejudge import current_outcome, current_signature
from numfuzz.corpus.size_order import size_key
from numfuzz.corpus.store import load_case
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis
from numfuzz.judge.rules import undecided
from numfuzz.judge.mechanism import Mechanism
from numfuzz.judge.signature import Signature, severity
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import GraphError


@dataclass
class Group:
    key: GroupKey
    signature: Signature  # the smallest finding's
    findings: set[str] = field(default_factory=set)  # one id per original finding
    severity: float | None = None  # the worst over the group
    smallest: Path | None = None
    smallest_key: tuple = ()
    known: KnownIssue | None = None
    mechanism: Mechanism | None = None
    benign: bool = True  # every finding in it is benign under the bounds in force (within_rounding, eager_unstable, subgradient)
    verdicts: set[str] = field(default_factory=set)  # its findings' final verdicts
    analysis: Analysis | None = None  # the smallest case's: culprit, cause, evidence
    minimized: bool = False  # the smallest case is a minimised one
    members: dict[str, Path] = field(default_factory=dict)  # finding id -> its smallest version
    note: str = ""  # why its smallest case is not minimised, as the campaign noted it
    dtypes: set[str] = field(default_factory=set)  # over its findings
    ops: set[str] = field(default_factory=set)
    causes: set[str] = field(default_factory=set)
    stale: str = ""  # why today's rules cannot judge any of its findings from their records (`judge.rules.undecided`); "": some can

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def unsupported(self) -> bool:
        """The target's own refusal of an op or argument that no known issue claims (`judge.refusal`): listed after the known."""
        return self.known is None and self.signature.symptom == Verdict.UNSUPPORTED.value

    @property
    def new(self) -> bool:
        """A finding that no known issue claims, no rule calls benign, and that is no refusal: what is listed as new."""
        return self.known is None and not self.benign and not self.unsupported

    @property
    def rank(self) -> int:
        """Where it is listed: new groups first, then the known, then refusals."""
        return 2 if self.unsupported else 1 if self.known is not None else 0

    @property
    def title(self) -> str:
        """The group's name, as the corpus table and the report show it."""
        return self.key.title(self.ops, self.dtypes, self.signature)


def listed(groups: list[Group], everything: bool = False) -> list[Group]:
    """The groups to show: those only within rounding when asked for. `corpus` and `report` both list these."""
    return [g for g in groups if everything or not g.benign]


def finding_id(case: Case) -> str:
    """A minimised case counts as the finding it came from."""
    original = case.extra.get("original")
    if isinstance(original, dict) and isinstance(original.get("hash"), str):
        return original["hash"]
    return case.content_hash()


NOTES = "minimize_notes.json"  # in a campaign corpus: finding stem -> why it is not minimised
CASE_FOLDERS = ("findings", "minimized", "rounding")  # in a campaign's corpus (rounding: benign cases kept for --all); elsewhere every *.json counts


def minimize_notes(root: Path) -> dict[str, str]:
    """finding stem -> why a campaign left it unminimised (`numfuzz.campaign.dedupe` writes them)."""
    try:
        data = json.loads((root / NOTES).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


CAMPAIGN_FOLDER = "campaign"  # a campaign corpus's journal, stats and logs: no case there
NEWEST_ANSWERS = "newest.json"  # what the newest interpreters answered, kept beside the cases (numfuzz.newest.interpreters)
OWN_FILES = (NOTES, NEWEST_ANSWERS)  # numfuzz's own files beside the cases


def case_paths(directory: Path) -> list[Path]:
    """The case files under `directory`: in a campaign corpus those of its case folders (none before its first finding),
    in any other folder every *.json below it but numfuzz's own files."""
    root = Path(directory)
    campaign = (root / CAMPAIGN_FOLDER).is_dir()
    folders = [root / name for name in CASE_FOLDERS if (root / name).is_dir()] or ([] if campaign else [root])
    return sorted({p for folder in folders for p in folder.rglob("*.json") if not p.name.startswith(".") and p.name not in OWN_FILES})


def group_corpus(directory: Path, known: Sequence[KnownIssue] | None = None, bounds: Bounds | None = None) -> tuple[list[Group], list[str]]:
    """Findings (and within_rounding cases) under `directory`, folded by root cause; also one line per unreadable file.

    In a campaign corpus the case folders are searched; in any other folder, every *.json below it.
    `known` defaults to the shipped known issues, `bounds` to the shipped bounds and $NUMFUZZ_BOUNDS's.
    """
    known = load_known() if known is None else known
    bounds = active_bounds() if bounds is None else bounds

    cases: list[tuple[Path, Case, Outcome]] = []
    problems: list[str] = []
    root = Path(directory)
    for path in case_paths(root):
        try:
            case = load_case(path)
            case.tensors()
        except CaseError as exc:
            problems.append(str(exc))
            continue
        outcome = current_outcome(case, bounds)
        if outcome.verdict.is_kept:
            cases.append((path, case, outcome))
    # A finding may have several versions (found, minimised): they share the best signature any
    # of them knows, and the smallest version stands for the finding (its severity, its path).
    versions: dict[str, Versions] = {}
    for path, case, outcome in cases:
        try:
            key = size_key(case)
        except GraphError as exc:  # an ill-typed graph in a stored case: report it, keep listing
            problems.append(f"{path}: {exc}")
            continue
        versions.setdefault(finding_id(case), []).append((key, path, case, outcome))
    groups: dict[tuple, Group] = {}
    for fid, found, signature, key in _keyed(versions, known):
        _fold(groups.setdefault(key.parts, Group(key, signature, known=key.known, mechanism=key.mechanism)), fid, found, signature, bounds)
    notes = minimize_notes(root)
    for group in groups.values():
        if not group.minimized and group.smallest is not None:
            group.note = notes.get(group.smallest.stem, "queued or not yet run: run the campaign again to finish it")
    order = sorted(groups.values(), key=lambda g: (g.rank, -(g.severity if g.severity is not None else -1.0), -g.count, g.title))
    return order, problems


Versions = list[tuple[tuple, Path, Case, Outcome]]  # one finding's versions, smallest first: (size key, path, case, outcome as judged today)


def _key_of(case: Case, signature: Signature, facts: Analysis | None, known: Sequence[KnownIssue]) -> GroupKey:
    return GroupKey.of(signature, case.graph, facts, known, case.provenance, case.run)


def _keyed(versions: dict[str, Versions], known: Sequence[KnownIssue]) -> list[tuple[str, Versions, Signature, GroupKey]]:
    """Each finding with its versions, its best-informed signature and its group key.

    A finding's key is its smallest version's. When minimising dropped a mode or setting the
    finding was found under, the minimised case's key no longer carries its label: the findings
    the campaign left unminimised as duplicates of that one (they share its original key) follow
    it into its group, instead of standing as a group of their own that reads "not minimised".
    """
    keyed, moved = [], {}
    for fid, found in versions.items():
        found.sort(key=lambda v: (v[0], str(v[1])))  # smallest first: its signature is the best informed
        signatures = [current_signature(case, outcome) for _, _, case, outcome in found]
        signature = next((s for s in signatures if s.cause), next((s for s in signatures if s.located), signatures[0]))
        facts = next((o.analysis for _, _, _, o in found if o.analysis is not None), None)
        smallest = found[0][2]
        key = _key_of(smallest, signature, facts, known)
        if isinstance(smallest.extra.get("minimize"), dict):
            original = next(((c, o) for _, _, c, o in found if "minimize" not in c.extra), None)
            if original is not None:
                origin = _key_of(original[0], current_signature(*original), original[1].analysis, known)
                moved.setdefault(origin.parts, key)
        keyed.append((fid, found, signature, key))
    return [(fid, found, signature, key if "minimize" in found[0][2].extra else moved.get(key.parts, key)) for fid, found, signature, key in keyed]


def _fold(group: Group, fid: str, found: Versions, signature: Signature, bounds: Bounds) -> None:
    """Adds one finding to its group: counts, verdicts, severity, and the smallest case so far."""
    size, path, case, outcome = found[0]
    fresh = not group.findings
    group.findings.add(fid)
    group.members[fid] = path
    verdict = outcome.verdict
    why = undecided(outcome, bounds) if verdict.is_finding else ""
    group.stale = why if fresh or group.stale and why else ""
    group.benign = group.benign and verdict.is_listed_benign
    group.verdicts.add(verdict.value)
    group.dtypes.add(signature.dtype)
    group.ops.update(signature.ops)
    group.causes.add(signature.cause)
    sev = severity(outcome)
    if sev is not None:
        group.severity = sev if group.severity is None else max(group.severity, sev)
    if group.smallest is None or size < group.smallest_key:
        group.smallest, group.smallest_key, group.signature = path, size, signature
        group.analysis = outcome.analysis
        group.minimized = isinstance(case.extra.get("minimize"), dict)
