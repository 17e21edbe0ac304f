"""Pieces shared by the CLI's command modules: one-line failures, --import, target lookup, isolation."""

from __future__ import annotations

import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, NoReturn

import click
from loguru import logger

EXIT_BAD_INPUT = 2


def fail(message: str) -> NoReturn:
    click.echo(f"numfuzz: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


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


def resolve_targets(specs: tuple[str, ...], device: str) -> list:
    return [resolve_target(spec) for spec in specs]


device_option = click.option("--device", default=None, help="Where targets run (default: cuda when present, else cpu).")
import_option = click.option(
    "--import", "imports", multiple=True, metavar="MODULE_OR_FILE", help="Import user code first (may register targets or Thunder executors)."
)


isolated_option = click.option(
    "--isolated", is_flag=True, help="Run the target in a separate worker process (automatic for findings that killed theirs: segfault, abort, timeout, oom)."
)


def recorded_imports(case: Any, imports: tuple[str, ...]) -> list[str]:
    """The case's recorded --import list plus these, files made absolute so that a repro finds them."""
    recorded = [str(x) for x in case.provenance.get("imports", []) if isinstance(x, str)]
    for spec in imports:
        path = Path(spec)
        recorded.append(str(path.resolve()) if spec.endswith(".py") or path.exists() else spec)
    return list(dict.fromkeys(recorded))


@contextmanager
def isolated_runner(case: Any, target: str, device: str, imports: list[str], isolated: bool, spare: bool = False) -> Iterator[Any]:
    """An IsolatedRunner when asked for or when the case's finding killed its process, else None.

    `spare`: keep a second worker started, for many cases that may each kill one (minimising)."""
    from numfuzz.corpus.case import recorded_outcome

    if not (isolated or recorded_outcome(case).verdict.kills_process):
        yield None
        return
    from numfuzz.campaign.isolation import IsolatedRunner, IsolationError
    from numfuzz.campaign.pool import WorkerStartError
    from numfuzz.campaign.worker import serve

    with IsolatedRunner(target, device, imports, entry=serve, spare=spare) as runner:
        try:
            yield runner
        except (WorkerStartError, IsolationError) as exc:
            fail(f"isolated worker: {exc}")


case_argument = click.argument("case_path", metavar="CASE", type=click.Path(path_type=Path))


target_option = click.option("--target", "target_spec", default=None, help="Override the case's target.")


def load_case_or_fail(path: Path):
    from numfuzz.corpus.case import CaseError
    from numfuzz.corpus.store import load_case

    try:
        case = load_case(path)
        case.tensors()
    except CaseError as exc:
        fail(str(exc))
    return case


def case_target(spec: str, case):
    recorded = case.provenance.get("imports") or []
    hint = f" (the case was found with {' '.join('--import ' + str(r) for r in recorded)})" if recorded else ""
    return resolve_target(spec, hint)


def prepare_case(case_path: Path, target_spec: str | None, device: str | None, imports: tuple[str, ...]):
    case = load_case_or_fail(case_path)
    for spec in imports:
        import_user_code(spec)
    from numfuzz.environment import default_device

    target = case_target(target_spec or case.target, case)
    case.provenance["imports"] = recorded_imports(case, imports)
    if not case.provenance["imports"]:
        del case.provenance["imports"]
    return case, target, device or default_device()


known_option = click.option(
    "--known",
    "known_files",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="A known-issues file (TOML, as numfuzz/data/known_issues.toml) whose matches are marked known, not new.",
)


def load_known_or_fail(files: tuple[Path, ...]) -> list:
    """The shipped known issues plus these files, or one line and exit 2."""
    from numfuzz.corpus.known import KnownIssuesError, load_known

    try:
        return load_known(files)
    except KnownIssuesError as exc:
        fail(str(exc))


bounds_option = click.option(
    "--bounds",
    "bounds_files",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="An error-bounds file (TOML, as numfuzz/data/error_bounds.toml) whose entries replace the shipped ones for the same ops.",
)


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
