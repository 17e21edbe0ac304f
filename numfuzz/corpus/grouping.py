"""Findings under a folder, folded by root cause: one group per signature group key, its worst severity and smallest case.

Groups are listed new first, then those a known upstream issue claims; within each, by severity.
A group whose every finding is *minor* (less accurate, yet within the documented accuracy of fp32
kernel libraries) is not listed unless asked for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from numfuzz.corpus.case import Case, CaseError, recorded_outcome, recorded_signature
from numfuzz.corpus.known import KnownIssue, load_known, match_known
from numfuzz.corpus.size_order import size_key
from numfuzz.corpus.store import load_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.signature import Signature, severity
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import GraphError


@dataclass
class Group:
    signature: Signature
    findings: set[str] = field(default_factory=set)  # one id per original finding
    severity: float | None = None  # the worst over the group
    smallest: Path | None = None
    smallest_key: tuple = ()
    known: KnownIssue | None = None
    minor: bool = True  # every finding in it is minor
    analysis: dict = field(default_factory=dict)  # the smallest case's: culprit, cause, evidence
    minimized: bool = False  # the smallest case is a minimised one
    members: dict[str, Path] = field(default_factory=dict)  # finding id -> its smallest version
    note: str = ""  # why its smallest case is not minimised, as the campaign noted it

    @property
    def count(self) -> int:
        return len(self.findings)


def listed(groups: list[Group], show_minor: bool = False) -> list[Group]:
    """The groups to show: minor ones only when asked for."""
    return [g for g in groups if show_minor or not g.minor]


def is_minor(outcome: Outcome) -> bool:
    flagged = [o for o in outcome.outputs if o.verdict == outcome.verdict.value and o.elements]
    return outcome.verdict is Verdict.LESS_ACCURATE and bool(flagged) and all(o.minor for o in flagged)


def finding_id(case: Case) -> str:
    """A minimised case counts as the finding it came from."""
    original = case.extra.get("original")
    if isinstance(original, dict) and isinstance(original.get("hash"), str):
        return original["hash"]
    return case.content_hash()


NOTES = "minimize_notes.json"  # in a campaign corpus: finding stem -> why it is not minimised
CASE_FOLDERS = ("findings", "minimized")  # in a campaign's corpus; elsewhere every *.json counts


def minimize_notes(root: Path) -> dict[str, str]:
    """finding stem -> why a campaign left it unminimised (`numfuzz.campaign.dedupe` writes them)."""
    try:
        data = json.loads((root / NOTES).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def group_corpus(directory: Path, known: Sequence[KnownIssue] | None = None) -> tuple[list[Group], list[str]]:
    """Findings under `directory`, folded by root cause; also one line per unreadable file.

    In a campaign corpus the case folders are searched; in any other folder, every *.json below it.
    `known` defaults to the shipped known issues.
    """
    known = load_known() if known is None else known

    cases: list[tuple[Path, Case]] = []
    problems: list[str] = []
    root = Path(directory)
    folders = [root / name for name in CASE_FOLDERS if (root / name).is_dir()] or [root]
    paths = sorted({p for folder in folders for p in folder.rglob("*.json") if not p.name.startswith(".")})
    for path in paths:
        try:
            case = load_case(path)
            case.tensors()
        except CaseError as exc:
            problems.append(str(exc))
            continue
        if recorded_outcome(case).verdict.is_finding:
            cases.append((path, case))
    # A finding may have several versions (found, minimised): they share the best signature any
    # of them knows, and the smallest version stands for the finding (its severity, its path).
    versions: dict[str, list[tuple[tuple, Path, Case]]] = {}
    for path, case in cases:
        try:
            key = size_key(case)
        except GraphError as exc:  # an ill-typed graph in a stored case: report it, keep listing
            problems.append(f"{path}: {exc}")
            continue
        versions.setdefault(finding_id(case), []).append((key, path, case))
    groups: dict[tuple, Group] = {}
    for fid, found in versions.items():
        found.sort(key=lambda v: (v[0], str(v[1])))  # smallest first: its signature is the best informed
        signatures = [recorded_signature(case) for _, _, case in found]
        signature = next((s for s in signatures if s.cause), next((s for s in signatures if s.located), signatures[0]))
        key, path, case = found[0]
        outcome = recorded_outcome(case)
        group = groups.setdefault(signature.group_key(), Group(signature, known=match_known(known, signature, case.provenance)))
        group.findings.add(fid)
        group.members[fid] = path
        group.minor = group.minor and is_minor(outcome)
        sev = severity(outcome)
        if sev is not None:
            group.severity = sev if group.severity is None else max(group.severity, sev)
        if group.smallest is None or key < group.smallest_key:
            group.smallest, group.smallest_key = path, key
            group.analysis = outcome.analysis or {}
            group.minimized = isinstance(case.extra.get("minimize"), dict)
    notes = minimize_notes(root)
    for group in groups.values():
        if not group.minimized and group.smallest is not None:
            group.note = notes.get(group.smallest.stem, "queued or not yet run: run the campaign again to finish it")
    order = sorted(groups.values(), key=lambda g: (g.known is not None, -(g.severity if g.severity is not None else -1.0), -g.count, g.signature.text()))
    return order, problems
