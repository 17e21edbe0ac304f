"""The zoo's table: every model type transformers registers, built small or the reason it is not (`numfuzz/data/hf_zoo.json`).

The table is made by `scripts/hf_zoo_survey` (every type tried, a few minutes) for the transformers it ran
with, and read by `numfuzz models --list` and by the sweep's default entries (every type built). A row
says the class built, the modality, the inputs made, the parameters, whether Thunder's jit needs the
context variables inert (`plain`), and for a type not built, why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from numfuzz.corpus.store import write_atomic

TABLE = "hf_zoo.json"


class CatalogError(ValueError):
    """A table that cannot be read; the message is one line for the user."""


@dataclass(frozen=True)
class Catalog:
    versions: dict[str, str]  # transformers and torch the survey ran with
    rows: list[dict[str, Any]]

    @property
    def built(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("built")]

    def row(self, model_type: str) -> dict[str, Any] | None:
        return next((r for r in self.rows if r["type"] == model_type), None)

    def to_json(self) -> str:
        return json.dumps({"versions": self.versions, "rows": self.rows}, indent=None, sort_keys=True, separators=(",", ":")).replace('},{"', '},\n{"') + "\n"


def builtin_path() -> Path:
    return Path(str(resources.files("numfuzz.data").joinpath(TABLE)))


def load_catalog(path: Path | None = None) -> Catalog:
    """The table at `path` (default: the one numfuzz ships); CatalogError where it is missing or not a table."""
    path = Path(path or builtin_path())
    try:
        return _read(str(path), path.stat().st_mtime_ns)
    except FileNotFoundError:
        raise CatalogError(f"{path}: no zoo table; make one with scripts/hf_zoo_survey") from None


@lru_cache(maxsize=4)
def _read(path: str, mtime: int) -> Catalog:  # read once while the file is unchanged: a grid asks per architecture
    try:
        data = json.loads(Path(path).read_text())
        return Catalog(dict(data["versions"]), list(data["rows"]))
    except (json.JSONDecodeError, KeyError, TypeError):
        raise CatalogError(f"{path}: not a zoo table") from None


def save_catalog(catalog: Catalog, path: Path | None = None) -> Path:
    path = path or builtin_path()
    write_atomic(path, catalog.to_json())
    return path


def reason_kind(reason: str) -> str:
    """A reason with what differs from one type to the next taken out (sizes, names in quotes, numbers): one row per kind."""
    import re

    head = reason.split(": ")[0] if reason.startswith(("its forward needs", "no model class")) else reason
    head = re.sub(r"\([^()]*\)", "", head)
    head = re.sub(r"'[^']*'|`[^`]*`|\[[^\]]*\]", "X", head)
    return re.sub(r"\d+", "N", head)[:110].strip()


def describe_catalog(catalog: Catalog) -> str:
    """The table as `numfuzz models --list` prints it: the counts, the reasons by kind, then every type's row."""
    from collections import Counter

    from numfuzz.model.spec import HF_CONFIGS

    built = catalog.built
    modalities = Counter(r.get("modality", "?") for r in built)
    versions = ", ".join(f"{k} {v}" for k, v in sorted(catalog.versions.items()))
    lines = [f"{len(built)} of {len(catalog.rows)} model types built ({versions}): " + ", ".join(f"{n} {m}" for m, n in modalities.most_common()), ""]
    kinds = Counter(reason_kind(r["reason"]) for r in catalog.rows if not r.get("built"))
    lines += ["| types | why not built |", "| --- | --- |", *(f"| {n} | {kind} |" for kind, n in kinds.most_common()), ""]
    lines += ["| type | built | modality | class | inputs | parameters | notes, or why not |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in catalog.rows:
        if r.get("built"):
            own = ["hf:" + r["type"] + " uses numfuzz's own small configuration"] if r["type"] in HF_CONFIGS else []
            notes = "; ".join(own + ([r["sizes"]] if r.get("sizes", "small") != "small" else []) + list(r.get("notes") or []))
            inputs = ", ".join(f"{n} {tuple(s)}" for n, s in zip(r.get("inputs", []), r.get("shapes", [])))
            lines.append(f"| {r['type']} | yes | {r.get('modality')} | {r.get('class_name')} | {inputs} | {r.get('parameters', 0):,} | {notes} |")
        else:
            lines.append(f"| {r['type']} | no | | | | | {r['reason']} |")
    return "\n".join(lines)
