"""Pieces shared by the CLI's command modules: one-line failures, --import, target lookup."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import NoReturn

import click
from loguru import logger

EXIT_BAD_INPUT = 2


def fail(message: str) -> NoReturn:
    click.echo(f"numfuzz: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


_imported: set[str] = set()


def import_user_code(spec: str) -> None:
    """Import a module name or a .py file, so that its targets and executors register. Idempotent."""
    path = Path(spec)
    is_file = spec.endswith(".py") or path.exists()
    key = str(path.resolve()) if is_file else spec
    if key in _imported:
        return
    try:
        if is_file:
            if not path.is_file():
                fail(f"--import {spec}: no such file")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[path.stem] = module
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)
    except SystemExit:
        raise
    except Exception as exc:
        fail(f"--import {spec}: {type(exc).__name__}: {exc}")
    _imported.add(key)


def quiet_libraries(verbose: bool) -> None:
    # Library chatter (missing optional packages, var() with few elements) is not the user's business.
    warnings.filterwarnings("ignore", category=UserWarning)
    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "WARNING")


def resolve_targets(specs: tuple[str, ...], device: str) -> list:
    from numfuzz.targets import TargetError, resolve

    found = []
    for spec in specs:
        try:
            target = resolve(spec)
        except TargetError as exc:
            fail(str(exc))
        ok, why = target.available()
        if not ok:
            fail(f"target {spec} is unavailable: {why}")
        found.append(target)
    return found


device_option = click.option("--device", default=None, help="Where targets run (default: cuda when present, else cpu).")
import_option = click.option("--import", "imports", multiple=True, metavar="MODULE_OR_FILE", help="Import user code first (may register targets or Thunder executors).")


