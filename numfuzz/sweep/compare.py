"""Two sweeps' results side by side, cell by cell: which architecture, target, precision and mode became less accurate.

A cell is worse in B than in A where B's verdict is a finding and A's is not (a finding that a
known issue explains is no finding), or where both are findings and B loses more than
`MORE_BITS` bits more than A against eager at its worst output. Better is the mirror image.
Cells only one sweep judged are counted, never compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numfuzz.sweep.results import ResultsError, load_results, read_versions

MORE_BITS = 1.0  # a bit more lost is twice the error: less than that is the noise of drawn samples


@dataclass(frozen=True)
class Change:
    key: str
    before: str  # A's verdict, with its bits lost
    after: str
    worse: bool


def _bits(record: dict[str, Any]) -> float:
    value = record.get("bits_lost")
    return float(value) if value is not None else 0.0


def _said(record: dict[str, Any]) -> str:
    verdict = str(record.get("verdict", "?"))
    if record.get("known"):
        return f"{verdict} (known {record['known']})"
    bits = _bits(record)
    return f"{verdict} ({bits:.3g} bits)" if record.get("finding") and bits and not math.isinf(bits) else verdict


def change_of(key: str, a: dict[str, Any], b: dict[str, Any]) -> Change | None:
    """How one cell changed from A to B, or None where it did not."""
    found_a, found_b = bool(a.get("finding")), bool(b.get("finding"))
    if found_a != found_b:
        return Change(key, _said(a), _said(b), worse=found_b)
    if found_a and abs(_bits(b) - _bits(a)) > MORE_BITS:
        return Change(key, _said(a), _said(b), worse=_bits(b) > _bits(a))
    return None


@dataclass
class Comparison:
    a: dict[str, Any]  # each sweep's versions
    b: dict[str, Any]
    changes: list[Change]
    both: int  # cells both judged
    only_a: int
    only_b: int

    @property
    def worse(self) -> list[Change]:
        return [c for c in self.changes if c.worse]

    def text(self) -> str:
        def who(v: dict[str, Any]) -> str:
            return f"torch {v.get('torch', '?')}, thunder {v.get('thunder') or '-'}"

        lines = [f"A: {who(self.a)}", f"B: {who(self.b)}", f"{self.both} cells in both; {self.only_a} only in A, {self.only_b} only in B"]
        worse, better = self.worse, [c for c in self.changes if not c.worse]
        lines.append(f"less accurate in B: {len(worse)}" + ("" if worse else " (none)"))
        lines += [f"  {c.key}: {c.before} -> {c.after}" for c in worse]
        lines.append(f"more accurate in B: {len(better)}" + ("" if better else " (none)"))
        lines += [f"  {c.key}: {c.before} -> {c.after}" for c in better]
        return "\n".join(lines)


def compare(a: Path, b: Path) -> Comparison:
    """Sweep folder B against sweep folder A."""
    ra, rb = load_results(a), load_results(b)
    for folder, found in ((a, ra), (b, rb)):
        if not found:
            raise ResultsError(f"{folder}: no sweep results there")
    both = sorted(set(ra) & set(rb))
    changes = [c for key in both if (c := change_of(key, ra[key], rb[key])) is not None]
    return Comparison(read_versions(a), read_versions(b), changes, len(both), len(set(ra) - set(rb)), len(set(rb) - set(ra)))
