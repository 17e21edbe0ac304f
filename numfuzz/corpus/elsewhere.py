"""A corpus replayed under another interpreter (a virtual environment with another torch): is each group still there, or fixed?

The Thunder targets run only on the torch releases Thunder imports on, so a campaign on them
finds Inductor bugs that a newer torch has fixed. `numfuzz corpus DIR --replay --python PATH`
runs `PATH -m numfuzz corpus DIR --replay --json` (numfuzz must be installed there, as the
README's newest-torch environment has it) and says per group: still on torch X, or fixed by X.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT_S = 3600.0
_HERE = re.compile(r"replaying on torch (\S+), thunder (\S+), python (\S+)")


class ElsewhereError(RuntimeError):
    """The other interpreter could not replay the corpus; the message is one line for the user."""


@dataclass
class GroupThere:
    reproduced: int
    findings: int
    skipped: int  # findings that could not run there (a target it lacks, another device)
    notes: list[str] = field(default_factory=list)

    def status(self, torch: str) -> str:
        if self.skipped == self.findings:
            return f"not run on torch {torch}: {self.notes[0] if self.notes else 'every finding was skipped'}"
        if self.reproduced:
            return f"still on torch {torch} ({self.reproduced}/{self.findings - self.skipped} reproduce)"
        return f"fixed by torch {torch} (0/{self.findings - self.skipped} reproduce)"


@dataclass
class Elsewhere:
    torch: str
    thunder: str
    python: str
    groups: dict[str, GroupThere]  # by title


def replay_elsewhere(python: Path, directory: Path, extra: list[str], timeout: float = TIMEOUT_S) -> Elsewhere:
    """Replay `directory` under `python`; ElsewhereError (one line) where it cannot."""
    command = [str(python), "-m", "numfuzz", "corpus", str(directory), "--replay", "--json", *extra]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ElsewhereError(f"{python}: cannot run it: {exc}") from None
    found = _HERE.search(done.stderr)
    if done.returncode not in (0, 1) or found is None:  # 1: some case was not as its file states, which is what we ask
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ElsewhereError(f"{python} -m numfuzz corpus --replay failed (exit {done.returncode}): {last[:300]}")
    try:
        rows = json.loads(done.stdout)
    except ValueError:
        raise ElsewhereError(f"{python} -m numfuzz corpus --replay printed no JSON") from None
    groups = {}
    for row in rows:
        cases = row.get("cases", [])
        skipped = [c for c in cases if c.get("now") == "skipped"]
        groups[str(row["group"])] = GroupThere(int(row.get("reproduced", 0)), len(cases), len(skipped), [str(c.get("note", "")) for c in skipped])
    torch, thunder, py = found.groups()
    return Elsewhere(torch, thunder, py, groups)
