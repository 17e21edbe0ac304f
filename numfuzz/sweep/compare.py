"""Two sweeps' results side by side, cell by cell: which cells became less accurate, and which started or stopped failing.

Each cell's state is `sweep.summary.cell_state`'s: runs, less accurate, a crash, a known bug, a refusal
(unsupported, a known limitation), invalid. Between sweep A and sweep B a cell
* became less accurate: B's is an accuracy finding and A's is not a finding at all (a finding that a
  known issue explains is no finding), or both are and B loses more than `MORE_BITS` bits more against
  eager at its worst output; became more accurate: the mirror image;
* started failing: A's ran (as accurate as eager, or less) and B's crashes, is refused, or hits a known
  issue's crash; stopped failing: the mirror image; failed otherwise: both fail with other messages;
* `invalid` on one side only (the model or its float64 reference fails there: numfuzz's side) is said apart.
Cells only one sweep judged are counted, never compared (torch 2.15.0 has no Thunder: its Thunder cells are A's only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numfuzz.judge.crash import crash_fingerprint
from numfuzz.sweep.results import ResultsError, load_results, read_versions
from numfuzz.sweep.summary import cell_state

MORE_BITS = 1.0  # a bit more lost is twice the error: less than that is the noise of drawn samples
RUNNING = ("runs", "less_accurate")
FAILING = ("crash", "known", "refuses")
KINDS = ("less accurate", "more accurate", "started failing", "stopped failing", "failed otherwise", "invalid on one side")


@dataclass(frozen=True)
class Change:
    key: str
    before: str  # A's verdict, with its bits lost
    after: str
    worse: bool
    kind: str = ""  # one of KINDS


def _bits(record: dict[str, Any]) -> float:
    value = record.get("bits_lost")
    return float(value) if value is not None else 0.0


def _said(record: dict[str, Any]) -> str:
    verdict = str(record.get("verdict", "?"))
    if record.get("known"):
        return f"{verdict} (known {record['known']})"
    bits = _bits(record)
    if record.get("finding") and bits and not math.isinf(bits):
        return f"{verdict} ({bits:.3g} bits)"
    if cell_state(record) == "crash" and record.get("detail"):
        return f"{verdict}: {crash_fingerprint(str(record['detail']))[:100]}"
    return verdict


def _accuracy_change(key: str, a: dict[str, Any], b: dict[str, Any]) -> Change | None:
    found_a, found_b = bool(a.get("finding")), bool(b.get("finding"))
    if found_a != found_b:
        return Change(key, _said(a), _said(b), worse=found_b, kind="less accurate" if found_b else "more accurate")
    if found_a and abs(_bits(b) - _bits(a)) > MORE_BITS:
        worse = _bits(b) > _bits(a)
        return Change(key, _said(a), _said(b), worse=worse, kind="less accurate" if worse else "more accurate")
    return None


def change_of(key: str, a: dict[str, Any], b: dict[str, Any]) -> Change | None:
    """How one cell changed from A to B, or None where it did not."""
    state_a, state_b = cell_state(a), cell_state(b)
    if "invalid" in (state_a, state_b):
        return None if state_a == state_b else Change(key, _said(a), _said(b), worse=False, kind="invalid on one side")
    if state_a in RUNNING and state_b in RUNNING:
        return _accuracy_change(key, a, b)
    if state_a in RUNNING:
        return Change(key, _said(a), _said(b), worse=True, kind="started failing")
    if state_b in RUNNING:
        return Change(key, _said(a), _said(b), worse=False, kind="stopped failing")
    if (a.get("known"), crash_fingerprint(str(a.get("detail") or ""))) != (b.get("known"), crash_fingerprint(str(b.get("detail") or ""))):
        return Change(key, _said(a), _said(b), worse=False, kind="failed otherwise")
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
        """The cells that became less accurate or started failing in B."""
        return [c for c in self.changes if c.worse]

    def text(self) -> str:
        def who(v: dict[str, Any]) -> str:
            return f"torch {v.get('torch', '?')}, thunder {v.get('thunder') or '-'}"

        lines = [f"A: {who(self.a)}", f"B: {who(self.b)}", f"{self.both} cells in both; {self.only_a} only in A, {self.only_b} only in B"]
        for kind in KINDS:
            found = [c for c in self.changes if c.kind == kind]
            lines.append(f"{kind} in B: {len(found)}" + ("" if found else " (none)"))
            lines += [f"  {c.key}: {c.before} -> {c.after}" for c in found]
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
