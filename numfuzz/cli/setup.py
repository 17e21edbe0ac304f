"""What a command sets up before it works: user code from --import, quiet logging, targets, known-issue files."""

from __future__ import annotations

import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from loguru import logger

from numfuzz.cli.failure import fail


def import_user_code(spec: str) -> None:
    """--import: load user code so that its targets and executors register, or fail in one line."""
    from numfuzz.user_code import load_user_code

    try:
        load_user_code(spec)
    except Exception as exc:
        fail(f"--import {spec}: {type(exc).__name__}: {exc}")


def quiet_libraries(verbose: bool) -> None:
    # Library chatter (missing optional packages, var() with few elements) is not the user's business.
    warnings.filterwarnings("ignore", category=UserWarning)
    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "WARNING")


def resolve_target(spec: str, hint: str = "") -> Any:
    """The target for `spec`, or one line and exit 2; `hint` is added when it is unavailable."""
    from numfuzz.targets import TargetError, resolve

    try:
        target = resolve(spec)
    except TargetError as exc:
        fail(str(exc))
    ok, why = target.available()
    if not ok:
        fail(f"target {spec} is unavailable: {why}{hint}")
    return target


def resolve_targets(specs: tuple[str, ...]) -> list:
    return [resolve_target(spec) for spec in specs]


def load_known_or_fail(files: tuple[Path, ...]) -> list:
    """The shipped known issues plus these files, or one line and exit 2."""
    from numfuzz.corpus.known import KnownIssuesError, load_known

    try:
        return load_known(files)
    except KnownIssuesError as exc:
        fail(str(exc))


def use_bounds_or_fail(files: tuple[Path, ...]):
    """The shipped bounds plus these files, or one line and exit 2."""
    from numfuzz.judge.bounds import BoundsError, load_bounds

    try:
        return load_bounds([*files])
    except BoundsError as exc:
        fail(str(exc))


@contextmanager
def bounds_in_environment(files: tuple[Path, ...]) -> Iterator[Any]:
    """Checked as `use_bounds_or_fail`, then named in the environment while the block runs, so that this
    process's judge and the workers it starts (which inherit the environment) judge by them."""
    import os

    from numfuzz.judge.bounds import ENV

    bounds = use_bounds_or_fail(files)
    before = os.environ.get(ENV)
    if files:
        os.environ[ENV] = os.pathsep.join(str(Path(f).resolve()) for f in files)
    try:
        yield bounds
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
