"""Paths and small helpers shared by the tests; import it as `helpers`."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANTED_BUGS = ROOT / "examples" / "planted_bugs.py"
PLANTED_CRASHES = str(ROOT / "examples" / "planted_crashes.py")
GATED_TARGET = str(ROOT / "tests" / "gated_target.py")  # the `gated` target: holds cases until the test lets them go
SEEDS = ROOT / "corpus" / "seeds"
FINDINGS = ROOT / "corpus" / "findings"


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())
