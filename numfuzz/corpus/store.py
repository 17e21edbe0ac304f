"""Cases on disk: one JSON file per case, named by content hash, schema-versioned, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from numfuzz.corpus.case import Case, CaseError


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temporary file in the same folder, fsync, then rename: never a torn file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if isinstance(text, bytes) else "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_case(case: Case, directory: Path, stem: str | None = None) -> Path:
    path = Path(directory) / f"{stem or case.content_hash()[:16]}.json"
    write_atomic(path, json.dumps(case.to_json(), indent=1, sort_keys=True, allow_nan=False) + "\n")
    return path


def load_case(path: Path | str) -> Case:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise CaseError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseError(f"{path}: not valid JSON (truncated or corrupt?): {exc.msg} at line {exc.lineno}") from None
    try:
        return Case.from_json(data)
    except CaseError as exc:
        raise CaseError(f"{path}: {exc}") from None


def iter_cases(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.json") if not p.name.startswith("."))
