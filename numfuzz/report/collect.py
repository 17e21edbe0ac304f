"""Finding groups read into plain data: each group's smallest case, its cause, errors and failure text.

Grouping is `numfuzz.corpus.grouping.group_corpus`'s; this module only reads. Cause and
known-issue marks are optional (older corpora have neither), so they are read defensively.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numfuzz.corpus.case import Case, recorded_outcome
from numfuzz.corpus.grouping import Group, group_corpus, listed
from numfuzz.corpus.store import load_case
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.rounding_error_text import describe
from numfuzz.program.lowering import lower
from numfuzz.report.data import ErrorFile, ErrorRow, GroupView, Known, Link

TRACEBACK_LINES = 14  # the tail of a worker log or traceback shown for a crash
SHOWN_VALUES = 8  # inputs with at most this many elements show their values


@dataclass
class CollectedGroup:
    """A group's plain view, with the case it was made from (for the sweep and the repro)."""

    view: GroupView
    case: Case
    path: Path


def collect_groups(corpus: Path, page_dir: Path, bounds: Bounds | None = None) -> tuple[list[CollectedGroup], list[str]]:
    """The corpus's finding groups, new ones first, then known ones; and one line per unreadable file.

    The groups are those `numfuzz corpus` lists, by the same rule (`grouping.listed`), under the same bounds.
    """
    bounds = active_bounds() if bounds is None else bounds
    groups, problems = group_corpus(corpus, bounds=bounds)
    collected: list[CollectedGroup] = []
    for group in listed(groups):
        if group.smallest is None:
            continue
        try:
            case = load_case(group.smallest)
        except Exception as exc:  # it parsed during grouping; a file changed since is a problem line, not a crash
            problems.append(f"{group.smallest}: {exc}")
            continue
        collected.append(CollectedGroup(group_view(group, case, group.smallest, page_dir, bounds), case, group.smallest))
    collected.sort(key=lambda c: c.view.known is not None)  # stable: severity order within new and within known
    return collected, problems


def group_view(group: Group, case: Case, path: Path, page_dir: Path, bounds: Bounds) -> GroupView:
    signature = group.signature
    outcome = recorded_outcome(case)
    cause, evidence, backward = _analysis(outcome, bounds)
    return GroupView(
        anchor="g-" + hashlib.sha256(signature.text().encode()).hexdigest()[:10],
        signature=signature.text(),
        title=group.title,
        rounding_error=backward,
        target=signature.target,
        symptom=signature.symptom,
        count=group.count,
        severity=group.severity,
        case=relative_link(path, page_dir),
        known=_known(group),
        cause=cause,
        evidence=evidence,
        program=_program(case),
        inputs=_inputs(case),
        errors=error_rows(outcome.outputs),
        detail=outcome.detail,
        traceback=_traceback(case),
        versions={k: str(case.provenance[k]) for k in ("numfuzz", "torch", "thunder", "python", "device") if k in case.provenance},
    )


def relative_link(path: Path, page_dir: Path) -> Link:
    href = os.path.relpath(Path(path).resolve(), Path(page_dir).resolve())
    return Link(Path(href).as_posix(), Path(path).name)


def error_rows(outputs: list[Any]) -> list[ErrorRow]:
    """The recorded error table: per output, eager's line and the target's."""
    rows: list[ErrorRow] = []
    for o in outputs:
        rows.append(ErrorRow(o.index, o.dtype, "eager", o.eager_max_ulp, o.eager_mean_ulp, o.eager_max_abs, o.eager_max_rel))
        rows.append(
            ErrorRow(o.index, o.dtype, "target", o.target_max_ulp, o.target_mean_ulp, o.target_max_abs, o.target_max_rel, f"{o.worse}/{o.better}", o.verdict)
        )
    return rows


def _known(group: Group) -> Known | None:
    known = getattr(group, "known", None)
    if known is None:
        return None
    return Known(*(str(getattr(known, name, "") or "") for name in ("id", "title", "link", "status")))


def _analysis(outcome: Outcome, bounds: Bounds) -> tuple[str | None, list[str], str]:
    """Cause, evidence and the rounding-error line (under `bounds`), from the recorded outcome."""
    facts = outcome.analysis
    if facts is None:
        return None, [], ""
    backward = describe(facts.rounding_error, bounds) if facts.rounding_error is not None else ""
    return facts.cause or None, list(facts.evidence), backward


def _program(case: Case) -> str:
    try:
        return lower(case.graph)
    except Exception as exc:  # an op without lowering: show the graph as data instead
        return f"# cannot lower this graph ({type(exc).__name__}: {exc})\n" + json.dumps(case.graph.to_json(), indent=1)


def _inputs(case: Case) -> list[str]:
    """One line per input: dtype and shape, and the first sample's values when they are few."""
    lines = []
    try:
        first = case.tensors()[0]
    except Exception:
        first = []
    n = len(case.samples)
    for i, spec in enumerate(case.graph.inputs):
        text = f"x{i}: {spec.dtype}{list(spec.shape)}, {n} sample{'s' if n != 1 else ''}"
        if i < len(first) and spec.numel <= SHOWN_VALUES:
            values = ", ".join(_number(v) for v in first[i].double().reshape(-1).tolist())
            text += f"; sample 0: [{values}]"
        lines.append(text)
    return lines


def _number(value: float) -> str:
    return repr(value) if math.isfinite(value) else str(value)


def _traceback(case: Case) -> str:
    """The informative end of what a crashed worker left, or of a stored traceback."""
    for key in ("worker_log", "traceback", "error"):
        text = case.extra.get(key)
        if isinstance(text, str) and text.strip():
            return traceback_summary(text)
    return ""


def traceback_summary(text: str, limit: int = TRACEBACK_LINES) -> str:
    """A Python traceback ends with its innermost frame and the error; faulthandler's dump starts there."""
    lines = text.strip().splitlines()
    marker = next((i for i, line in enumerate(lines) if line.startswith("Current thread") and "most recent call first" in line), None)
    if marker is None:
        return "\n".join(lines[-limit:])
    fatal = [line for line in lines[:marker] if line.startswith("Fatal Python error")][:1]
    frames = []
    for line in lines[marker : marker + limit]:
        if not line.strip():
            break
        frames.append(line)
    return "\n".join(fatal + ([""] if fatal else []) + frames)


def error_files(corpus: Path, page_dir: Path) -> list[ErrorFile]:
    """numfuzz's own failures under errors/: each file and the last line of its traceback."""
    folder = Path(corpus) / "errors"
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        if path.name.startswith("."):
            continue
        try:
            data = json.loads(path.read_text())
            text = str(data.get("extra", {}).get("error", "")).strip()
            summary = text.splitlines()[-1] if text else "no traceback stored"
        except (OSError, UnicodeDecodeError, ValueError, AttributeError) as exc:
            summary = f"unreadable: {type(exc).__name__}: {exc}"
        found.append(ErrorFile(relative_link(path, page_dir), summary))
    return found
