"""One case replayed in this interpreter for a confirmation on the newest versions: on its own target, or through
the compiler behind it where its own target cannot run here.

A newest interpreter (a venv with the newest torch, or with Thunder's main branch) answers what `numfuzz.newest.interpreters`
asks it with these rows. A Thunder case on a torch Thunder does not import on still says something about the
newest torch when its code came from Inductor (the torchcompile executor, thunderfx): it runs through `inductor`,
and the asking side checks that the same run reproduces the finding on its own versions before it trusts the answer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.store import load_case

SKIPPED = "skipped"


@dataclass(frozen=True)
class ReplayedHere:
    path: str
    target: str  # the target the case ran on here ("" when skipped)
    through: bool  # ran through the compiler behind its own target
    now: str  # the verdict here, or SKIPPED
    symptom: str = ""  # with a crash's exception class: crash_compile:TypeError
    fingerprint: str = ""  # a crash's normalised message
    note: str = ""  # why it was skipped

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> ReplayedHere:
        return ReplayedHere(**{k: (bool(data[k]) if k == "through" else str(data[k])) for k in ReplayedHere.__dataclass_fields__ if k in data})


def compiler_behind(target: Any) -> str:
    """The target spec of the compiler that generates `target`'s code, where that is another target ("": none)."""
    return str(getattr(target, "compiler_behind", "") or "")


def _through(case: Case, spec: str) -> Case:
    """The case compiled by `spec` instead: the front end's own options do not apply to the compiler behind it."""
    return case.with_run(case.run.with_changes(target=spec, compiler_options=()))


def _load_imports(case: Case) -> str:
    """The modules and files the case's target needs, imported; why not ("" when they all load)."""
    from numfuzz.user_code import load_user_code

    for spec in case.run.imports:
        try:
            load_user_code(spec)
        except Exception as exc:  # user code fails in any way
            return f"run.imports names {spec}, which does not load here ({type(exc).__name__}: {exc})"
    return ""


def _resolved(case: Case) -> tuple[Any | None, str]:
    """The case's own target, configured for its run, or None and why it cannot run here."""
    from numfuzz.targets import TargetError, resolve
    from numfuzz.targets.compile_modes import configured

    try:
        target = resolve(case.target)
        ok, why = configured(target, case.run).available()
    except TargetError as exc:
        return None, str(exc)
    return (target, "") if ok else (target, why)


def replay_here(path: Path, through: bool, device: str) -> ReplayedHere:
    """Run the case at `path` here: on its target, or through the compiler behind it (`through`, or its own target unavailable)."""
    from numfuzz.judge.crash import crash_fingerprint
    from numfuzz.judge.signature import symptom_of
    from numfuzz.targets import TargetError, resolve

    try:
        case = load_case(path)
    except CaseError as exc:
        return ReplayedHere(str(path), "", through, SKIPPED, note=str(exc))
    missing = _load_imports(case)
    if missing:
        return ReplayedHere(str(path), "", through, SKIPPED, note=missing)
    target, why = _resolved(case)
    behind = compiler_behind(target) if target is not None else ""
    if through or why:
        if not behind:
            return ReplayedHere(str(path), "", through, SKIPPED, note=why or f"{case.target} has no compiler behind it to run")
        case = _through(case, behind)
        try:
            target = resolve(behind)
        except TargetError as exc:
            return ReplayedHere(str(path), "", True, SKIPPED, note=str(exc))
        ok, why = target.available()
        if not ok:
            return ReplayedHere(str(path), "", True, SKIPPED, note=f"{behind}: {why}")
        through = True
    case = case.with_run(case.run.with_changes(device=device))
    outcome = _run(case, target, device)
    if isinstance(outcome, str):
        return ReplayedHere(str(path), target.name, through, SKIPPED, note=outcome)
    fingerprint = crash_fingerprint(outcome.detail) if outcome.verdict.is_finding and not outcome.verdict.is_accuracy else ""
    return ReplayedHere(str(path), target.name, through, outcome.verdict.value, symptom_of(outcome), fingerprint)


def _run(case: Case, target: Any, device: str) -> Any:
    """The outcome, in an isolated worker where the recorded finding killed its process; a string where that failed."""
    from numfuzz.corpus.case import recorded_outcome
    from numfuzz.runner.case_runner import run_case

    if not recorded_outcome(case).verdict.kills_process:
        return run_case(case, target)
    from numfuzz.workers.isolation import IsolatedRunner, IsolationError
    from numfuzz.workers.pool import WorkerStartError
    from numfuzz.workers.worker import serve

    try:
        with IsolatedRunner(target.name, device, list(case.run.imports), entry=serve) as runner:
            return runner.evaluate_case(case)
    except (WorkerStartError, IsolationError) as exc:
        return f"isolated worker: {exc}"
