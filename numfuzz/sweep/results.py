"""A sweep's output folder: its results file (one JSON record per line, one per cell judged) and what judged them.

Each record is appended by rewriting the file atomically (`corpus.store.write_atomic`): a sweep
killed at any moment leaves every finished cell's record whole, and a rerun skips those cells.
Only the sweep's parent writes it; the workers hand their records back. `versions.json` says which
interpreter judged the cells (torch, Thunder, transformers), for a comparison across versions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from numfuzz.corpus.store import write_atomic

RESULTS = "results.jsonl"
VERSIONS = "versions.json"
GROUPS = "groups.json"  # the findings grouped by root cause (`sweep.groups`), written as the sweep finishes


class ResultsError(ValueError):
    """A folder that holds no sweep's results; the message is one line for the user."""


def load_results(folder: Path) -> dict[str, dict[str, Any]]:
    """The records in FOLDER's results file by cell key (a later record of a key replaces an earlier); none where there is no file yet."""
    path = Path(folder) / RESULTS
    if not path.exists():
        return {}
    found = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            found[str(record["key"])] = record
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ResultsError(f"{path}:{number}: not a sweep record") from None
    return found


def append_result(folder: Path, record: dict[str, Any]) -> None:
    """The record added to FOLDER's results file, atomically."""
    path = Path(folder) / RESULTS
    before = path.read_text() if path.exists() else ""
    write_atomic(path, before + json.dumps(record, sort_keys=True, allow_nan=False) + "\n")


def write_versions(folder: Path, device: str) -> None:
    """What judges this sweep's cells: the interpreter's versions (`environment.provenance`), kept from the first run."""
    from numfuzz.environment import provenance

    path = Path(folder) / VERSIONS
    now = provenance(device)
    if path.exists():
        kept = json.loads(path.read_text())
        if {k: kept.get(k) for k in ("torch", "thunder")} != {k: now.get(k) for k in ("torch", "thunder")}:
            raise ResultsError(
                f"{folder} holds a sweep judged under torch {kept.get('torch')}, thunder {kept.get('thunder')}; this is {now.get('torch')}, {now.get('thunder')}: use another folder"
            )
        return
    write_atomic(path, json.dumps(now, indent=1, sort_keys=True) + "\n")


def read_versions(folder: Path) -> dict[str, Any]:
    path = Path(folder) / VERSIONS
    return json.loads(path.read_text()) if path.exists() else {}
