"""Fixtures; shared paths and helpers live in `helpers`. Everything under integration/ is marked slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import PLANTED_BUGS

INTEGRATION = Path(__file__).resolve().parent / "integration"


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if INTEGRATION in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.slow)


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
    from numfuzz.cli.common import import_user_code

    import_user_code(str(PLANTED_BUGS))
    return PLANTED_BUGS
