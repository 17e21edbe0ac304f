"""Fixtures; shared paths and helpers live in `helpers`.

Everything under integration/ is marked slow. Tests marked `thunder` (the planted bugs are Thunder
executors) skip, with the reason, where lightning-thunder is absent or does not import with this torch.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import PLANTED_BUGS

INTEGRATION = Path(__file__).resolve().parent / "integration"


def _thunder_missing() -> str:
    from numfuzz.targets.thunder import thunder_import_error

    if importlib.util.find_spec("thunder") is None:
        return "lightning-thunder is not installed"
    return thunder_import_error()


THUNDER_MISSING = _thunder_missing()


def pytest_collection_modifyitems(items: list) -> None:
    for item in items:
        if INTEGRATION in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.slow)
        if THUNDER_MISSING and "thunder" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"needs thunder: {THUNDER_MISSING}"))


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
    if THUNDER_MISSING:
        pytest.skip(f"the planted bugs are Thunder executors: {THUNDER_MISSING}")
    from numfuzz.cli.setup import import_user_code

    import_user_code(str(PLANTED_BUGS))
    return PLANTED_BUGS
