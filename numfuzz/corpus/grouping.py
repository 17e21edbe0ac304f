"""Findings under a folder, folded by signature: one group per finding class, its worst severity and smallest case."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from numfuzz.corpus.case import Case, CaseError, recorded_outcome, recorded_signature
from numfuzz.corpus.store import load_case
from numfuzz.judge.signature import Signature, severity
from numfuzz.program.ir import GraphError


@dataclass
class Group:
    signature: Signature
    findings: set[str] = field(default_factory=set)  # one id per original finding
    severity: float | None = None  # the worst over the group
    smallest: Path | None = None
    smallest_key: tuple = ()

    @property
    def count(self) -> int:
        return len(self.findings)


def finding_id(case: Case) -> str:
    """A minimised case counts as the finding it came from."""
    original = case.extra.get("original")
    if isinstance(original, dict) and isinstance(original.get("hash"), str):
        return original["hash"]
    return case.content_hash()


CASE_FOLDERS = ("findings", "minimized")  # in a campaign's corpus; elsewhere every *.json counts


def group_corpus(directory: Path) -> tuple[list[Group], list[str]]:
    """Findings under `directory`, folded by signature; also one line per unreadable file.

    In a campaign corpus the case folders are searched; in any other folder, every *.json below it.
    """
    from numfuzz.reduce.order import size_key

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
    groups: dict[Signature, Group] = {}
    for fid, found in versions.items():
        signatures = [recorded_signature(case) for _, _, case in found]
        signature = next((s for s in signatures if s.located), signatures[0])
        key, path, case = min(found, key=lambda v: (v[0], str(v[1])))
        group = groups.setdefault(signature, Group(signature))
        group.findings.add(fid)
        sev = severity(recorded_outcome(case))
        if sev is not None:
            group.severity = sev if group.severity is None else max(group.severity, sev)
        if group.smallest is None or key < group.smallest_key:
            group.smallest, group.smallest_key = path, key
    order = sorted(groups.values(), key=lambda g: (-(g.severity if g.severity is not None else -1.0), -g.count, g.signature.text()))
    return order, problems
