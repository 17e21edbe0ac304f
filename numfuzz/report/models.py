"""A model sweep's page: architecture by target, mode and precision, each cell coloured by its verdict and linking to its explanation.

The page sits in the sweep's folder beside what it links to: each cell's explanation
(`cells/*.txt`: the output table, the module table, the partings, the op and line, and the command
that judges its modules and partings where the sweep did not) and, for a finding, its extracted case
(`findings/*.json`). Above the grid: a summary per target (how many architectures run, refuse,
crash, or are less accurate: `sweep.summary`) and the findings grouped across architectures by root
cause (`sweep.groups`). Rows filter by name, modality and state (a few lines of script; without it
every row shows). One self-contained HTML file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numfuzz.corpus.store import write_atomic
from numfuzz.report.render import environment
from numfuzz.sweep.grid import PRECISIONS
from numfuzz.sweep.groups import group_records
from numfuzz.sweep.results import read_versions
from numfuzz.sweep.summary import STATES, cell_state, summarize

PAGE = "index.html"
BENIGN = {"within_rounding", "amplified", "eager_unstable", "subgradient"}
CLEAN = {"equal", "more_accurate"}
FINDINGS = {"less_accurate", "nonfinite", "nonfinite_class", "position_dependent", "mismatch", "nondeterministic"}


@dataclass(frozen=True)
class Column:
    target: str
    mode: str
    precision: str


@dataclass(frozen=True)
class Shown:
    css: str
    text: str
    title: str
    link: str
    case: str | None


def css_of(record: dict[str, Any]) -> str:
    """The colour class of a cell's record: a finding is one whatever the whole model's verdict (a module alone may be worse)."""
    verdict = str(record.get("verdict", ""))
    if verdict == "unsupported" or (record.get("known") and record.get("known_kind") == "limitation"):
        return "refuses"
    if record.get("known"):
        return "known"
    if record.get("finding"):
        return "finding" if verdict in FINDINGS or verdict in CLEAN or verdict in BENIGN else "crash"
    if verdict in CLEAN:
        return "clean"
    return "benign" if verdict in BENIGN else "invalid"


def _shown(record: dict[str, Any]) -> Shown:
    verdict = str(record.get("verdict", "?"))
    bits = record.get("bits_lost")
    text = verdict.replace("_", " ") + (f" {bits} b" if record.get("finding") and bits not in (None, 0, 0.0) else "")
    if record.get("finding") and record.get("module") and (verdict in CLEAN or verdict in BENIGN):  # the model is not worse, a module alone is
        text += f"; {str(record['module']).rsplit('.', 1)[-1]} worse"
    where = f" at {record['module']}" + (f", {record['line']}" if record.get("line") else "") if record.get("module") else ""
    way = f"Thunder's jit given the model with {record['way']}" if record.get("way") not in (None, "as shipped") else ""
    title = "; ".join(
        p for p in (record.get("key", ""), f"known issue {record['known']}" if record.get("known") else "", record.get("detail") or "", where.strip(), way) if p
    )
    return Shown(css_of(record), text, title, str(record.get("explain") or ""), record.get("case"))


def _order(values: list[str], first: tuple[str, ...] = ()) -> list[str]:
    return [v for v in first if v in values] + sorted(set(values) - set(first))


def page_data(results: dict[str, dict[str, Any]], versions: dict[str, Any]) -> dict[str, Any]:
    """What the template shows: the header's groups, the columns, and each model's row of cells (None: not judged)."""
    records = list(results.values())
    targets = _order(list({r["target"] for r in records}))
    modes = _order(list({r["mode"] for r in records}), ("forward", "train"))
    precisions = _order(list({r["precision"] for r in records}), tuple(PRECISIONS))
    present = {(r["target"], r["mode"], r["precision"]) for r in records}
    columns = [Column(t, m, p) for t in targets for m in modes for p in precisions if (t, m, p) in present]
    rows = []
    modalities = _modalities()
    for model, positions in sorted({(r["model"], int(r.get("positions") or 0)) for r in records}):
        mine = [r for r in records if r["model"] == model and int(r.get("positions") or 0) == positions]
        by_column = {(r["target"], r["mode"], r["precision"]): r for r in mine}
        name = model.removeprefix("hf:") + (f" ({positions} positions)" if positions else "")
        found = [by_column.get((c.target, c.mode, c.precision)) for c in columns]
        states = sorted({cell_state(r) for r in mine}, key=STATES.index)
        modality = modalities.get(model.removeprefix("hf:"), "") if model.startswith("hf:") else "user"
        rows.append({"name": name, "modality": modality, "states": " ".join(states), "cells": [_shown(r) if r is not None else None for r in found]})
    spans_t = [(t, sum(1 for c in columns if c.target == t)) for t in targets if any(c.target == t for c in columns)]
    spans_m = [
        (t, m, sum(1 for c in columns if (c.target, c.mode) == (t, m))) for t in targets for m in modes if any((c.target, c.mode) == (t, m) for c in columns)
    ]
    said = f"torch {versions.get('torch', '?')}, thunder {versions.get('thunder') or '-'}, on {versions.get('device', '?')} ({versions.get('isa', '?')})"
    findings = sum(1 for r in records if r.get("finding"))
    return {
        "title": said,
        "versions": said,
        "judged": len(records),
        "findings": findings,
        "targets": spans_t,
        "modes": spans_m,
        "columns": columns,
        "rows": rows,
        "states": STATES,
        "modalities": sorted({r["modality"] for r in rows if r["modality"]}),
        "summary": summarize(records),
        "groups": group_records(records),
    }


def _modalities() -> dict[str, str]:
    """Each zoo architecture's modality, by the zoo's table (none where there is no table)."""
    from numfuzz.model.hf_zoo.catalog import CatalogError, load_catalog

    try:
        return {r["type"]: r.get("modality", "") for r in load_catalog().built}
    except CatalogError:
        return {}


def write_page(folder: Path, results: dict[str, dict[str, Any]]) -> Path:
    """FOLDER/index.html, from the sweep's results there."""
    html = environment().get_template("models.html.j2").render(page=page_data(results, read_versions(folder)))
    path = Path(folder) / PAGE
    write_atomic(path, html)
    return path
