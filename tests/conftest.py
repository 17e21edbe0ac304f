from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
PLANTED_BUGS = ROOT / "examples" / "planted_bugs.py"
SEEDS = ROOT / "corpus" / "seeds"


@pytest.fixture
def cli():
    """Run the numfuzz CLI in-process; returns click's Result (exit_code, output)."""
    from numfuzz.cli import main

    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)

    return run


@pytest.fixture
def planted_bugs() -> Path:
    from numfuzz.cli_common import import_user_code

    import_user_code(str(PLANTED_BUGS))
    return PLANTED_BUGS


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())
