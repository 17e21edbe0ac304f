"""Inside a worker: minimise one finding for the campaign, telling it how far it got as it goes.

A finding that killed its process is minimised through an isolated worker, with a warm spare so
that a candidate that kills one does not wait for a cold start, and with candidate time limits
from the target's measured run times rather than the whole `--case-timeout`. A minimised hang is
confirmed once at the full `--case-timeout`. The campaign can ask the minimiser to stop (`cancel`
on the pipe): it then hands back the smallest case so far.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any, Callable

from numfuzz.workers.defaults import FIRST_CASE_GRACE_S
from numfuzz.workers.messages import Minimized, MinimizeRequest, Progress
from numfuzz.workers.settings import WorkerSettings

PROGRESS_EVERY_S = 1.0  # progress messages from one minimisation, at most this often (except kept candidates)

Notify = Callable[[Progress], None]


def minimize_finding(
    msg: MinimizeRequest,
    target: Any,
    settings: WorkerSettings,
    entry: Callable[[Any, WorkerSettings, Any], None],
    notify: Notify,
    cancelled: Callable[[], bool],
) -> Minimized:
    """The reply to a minimize request; `settings` are the worker's own."""
    from numfuzz.corpus.case import Case, recorded_outcome
    from numfuzz.reduce.minimize import minimize_case
    from numfuzz.reduce.shrinker import Exhausted

    reply = Minimized(msg.finding, msg.key)
    case = Case.from_json(msg.case)
    kills = recorded_outcome(case).verdict.kills_process
    seconds = _own_budget(msg, settings.case_timeout, kills)
    sent = [0.0]

    def progress(info: dict[str, Any]) -> None:
        now = time.monotonic()
        if info["stage"] != "shrink" or info["kept"] or now - sent[0] >= PROGRESS_EVERY_S:
            sent[0] = now
            notify(Progress(msg.finding, **info))

    started = time.monotonic()
    try:
        if not kills:
            result = minimize_case(case, target, settings.device, max_seconds=seconds, progress=progress, stop=cancelled)
        else:  # each candidate must run in a process it may kill
            result = _minimize_isolated(msg, case, target, settings, entry, notify, cancelled, seconds, progress, reply)
        reply.summary = result.summary()
        reply.exhausted = result.exhausted
        if result.reproduced:
            reply.case = result.case.to_json()
    except Exhausted:  # cancelled before the finding was even confirmed
        reply.summary = "stopped before the finding was confirmed"
    except Exception:
        reply.summary = "minimiser failed: " + traceback.format_exc(limit=8).strip().splitlines()[-1]
        reply.error = traceback.format_exc(limit=20)
    reply.cancelled = cancelled()
    reply.seconds = round(time.monotonic() - started, 2)
    return reply


def _own_budget(msg: MinimizeRequest, case_timeout: float, kills: bool) -> float | None:
    """Seconds the minimiser gives itself. Past its budget the campaign asks for the smallest case so far;
    stopping on our own a little earlier leaves time to confirm a hang at the full --case-timeout."""
    budget = msg.budget if msg.budget is not None else msg.timeout
    reserve = case_timeout + FIRST_CASE_GRACE_S if kills else 0.0
    return max(budget - reserve, budget / 2) if budget else None


def _minimize_isolated(
    msg: MinimizeRequest,
    case: Any,
    target: Any,
    settings: WorkerSettings,
    entry: Callable[[Any, WorkerSettings, Any], None],
    notify: Notify,
    cancelled: Callable[[], bool],
    seconds: float | None,
    progress: Callable[[dict[str, Any]], None],
    reply: Minimized,
) -> Any:
    """`minimize_case` with every candidate run in an isolated worker (with a warm spare), a minimised hang confirmed
    at the full --case-timeout; the candidates' seconds and the clock go into `reply`."""
    from numfuzz.reduce.minimize import minimize_case
    from numfuzz.reduce.shrinker import Exhausted
    from numfuzz.workers.candidate_clock import CandidateClock
    from numfuzz.workers.isolation import Cancelled, IsolatedRunner

    case_timeout = settings.case_timeout
    log_path = Path(settings.log_path)
    clock = CandidateClock.from_json(msg.clock, case_timeout)
    isolated = IsolatedRunner(
        msg.target,
        settings.device,
        settings.imports,
        case_timeout,
        settings.memory_limit,
        log_path.parent,
        f"{log_path.stem}-isolated",
        entry=entry,
        spare=True,
        clock=clock,
    )
    isolated.should_stop = cancelled

    def run(candidate: Any) -> Any:
        try:
            return isolated.evaluate_case(candidate)
        except Cancelled:
            raise Exhausted from None

    with isolated:
        result = minimize_case(case, target, settings.device, max_seconds=seconds, runner=run, progress=progress, stop=cancelled)
        if not cancelled() and clock.timeout(False) < case_timeout:
            _confirm_hang(isolated, result, case_timeout, msg, notify)
        reply.candidate_s = [round(s, 2) for s in isolated.seconds]
        reply.clock = clock.to_json()
    return result


def _confirm_hang(isolated: Any, result: Any, case_timeout: float, msg: MinimizeRequest, notify: Notify) -> None:
    """A minimised hang, found under the candidates' shorter limits, run once at the full --case-timeout: a hang is
    what outlasts the campaign's own limit. Unconfirmed when cancelled (the next run goes on from this case)."""
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.workers.isolation import Cancelled

    if not (result.reproduced and result.outcome is not None and result.outcome.verdict is Verdict.TIMEOUT):
        return
    notify(Progress(msg.finding, "confirm-hang", nodes=len(result.case.graph.nodes), seconds=case_timeout))
    try:
        confirmed = isolated.evaluate_case(result.case, timeout=case_timeout)
    except Cancelled:
        result.exhausted = True
        return
    if confirmed.verdict is not Verdict.TIMEOUT:
        result.reproduced = False
        result.detail = f"the smallest candidate gave {confirmed.verdict.value} within the full {case_timeout:g} s"
    result.case.extra["minimize"]["hang_confirmed_s"] = case_timeout
