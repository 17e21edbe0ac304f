"""A case from the command line: loaded or one line, under the run specification it gets here, isolated when it kills processes."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from numfuzz.cli.failure import fail
from numfuzz.cli.setup import import_user_code, resolve_target


def recorded_imports(case: Any, imports: tuple[str, ...]) -> list[str]:
    """The case's recorded --import list plus these, files made absolute so that a repro finds them."""
    from numfuzz.campaign.config import absolute_imports

    given = {Path(spec).name for spec in imports}  # a recorded file given anew at another place: the new place
    return list(dict.fromkeys([*(spec for spec in case.run.imports if Path(spec).name not in given), *absolute_imports(imports)]))


@contextmanager
def isolated_runner(case: Any, target: str, device: str, imports: list[str], isolated: bool, spare: bool = False) -> Iterator[Any]:
    """An IsolatedRunner when asked for or when the case's finding killed its process, else None.

    `spare`: keep a second worker started, for many cases that may each kill one (minimising)."""
    from numfuzz.corpus.case import recorded_outcome

    if not (isolated or recorded_outcome(case).verdict.kills_process):
        yield None
        return
    from numfuzz.workers.isolation import IsolatedRunner, IsolationError
    from numfuzz.workers.pool import WorkerStartError
    from numfuzz.workers.worker import serve

    with IsolatedRunner(target, device, imports, entry=serve, spare=spare) as runner:
        try:
            yield runner
        except (WorkerStartError, IsolationError) as exc:
            fail(f"isolated worker: {exc}")


def load_case_or_fail(path: Path):
    from numfuzz.corpus.case import CaseError
    from numfuzz.corpus.store import load_case

    try:
        case = load_case(path)
        case.tensors()
    except CaseError as exc:
        fail(str(exc))
    return case


def import_recorded(spec: str, case_path: Path) -> None:
    """A module or file the case's run specification imports, or one line and exit 2 (a file that is gone, say)."""
    from numfuzz.user_code import load_user_code

    try:
        load_user_code(spec)
    except Exception as exc:
        fail(f"{case_path}: run.imports names {spec}, which does not load ({type(exc).__name__}: {exc}); give --import its new place, or edit the case")


def case_target(spec: str, case):
    recorded = case.run.imports
    hint = f" (the case was found with {' '.join('--import ' + str(r) for r in recorded)})" if recorded else ""
    return resolve_target(spec, hint)


def run_device(device: str | None, case) -> str:
    """--device, else the device the case's run specification names, else this machine's default; one line if it is absent here."""
    from numfuzz.environment import default_device

    chosen = device or case.run.device or default_device()
    if chosen.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            fail(f"the case runs on {chosen}, and this machine has no CUDA device; --device cpu runs it here")
    return chosen


def prepare_case(case_path: Path, target_spec: str | None, device: str | None, imports: tuple[str, ...]):
    """The case under the run specification it gets here (--target, --device and --import applied), its target and device."""
    case = load_case_or_fail(case_path)
    for spec in imports:
        import_user_code(spec)
    given = {Path(spec).name for spec in imports}
    for spec in case.run.imports:  # the case's own: its target needs them, as it did when it was found
        if Path(spec).name not in given:
            import_recorded(spec, case_path)
    target = case_target(target_spec or case.target, case)
    run = case.run.with_changes(target=target.name, device=run_device(device, case), imports=tuple(recorded_imports(case, imports)))
    check_compile_mode(target, run)
    return case.with_run(run), target, run.device


def check_compile_mode(target, run) -> None:
    """One line and exit 2 unless `target` compiles as the case asks: its size mode, and every drawn option in this torch."""
    from numfuzz.targets import TargetError
    from numfuzz.targets.compile_modes import configured

    try:
        ok, why = configured(target, run).available()
    except TargetError as exc:
        fail(str(exc))
    if not ok:
        fail(f"the case compiles {target.name} with {run.compile_label(dims=True)}, unavailable here: {why}")
