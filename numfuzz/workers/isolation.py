"""Run given cases in a throwaway worker process, so that a target that kills its process is a verdict.

A segfault, an abort, a hang or an exhausted memory can only be seen from outside the process
that ran the case. `numfuzz replay` and the minimiser use this for such findings: the worker
stays warm across cases that do not crash. A crash costs a cold start of a fresh one, unless a
spare was started beforehand: then the spare takes the next case while the dead one restarts.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

import torch

from numfuzz.corpus.case import Case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph
from numfuzz.run_spec import RunSpec
from numfuzz.workers.candidate_clock import CandidateClock
from numfuzz.workers.defaults import DEFAULT_CASE_TIMEOUT_S
from numfuzz.workers.messages import ErrorReply
from numfuzz.workers.pool import Entry, Pool, Task
from numfuzz.workers.settings import WorkerSettings

POLL_S = 0.2


class IsolationError(RuntimeError):
    """numfuzz itself failed inside the isolated worker; the message is the error's last line."""


class Cancelled(Exception):
    """`should_stop` said stop while a case was running; the worker running it was killed."""


class IsolatedRunner:
    """One warm worker for `target` (two with `spare`); `evaluate` has the signature of the in-process path.

    `entry` is the worker process's main, `numfuzz.workers.worker.serve`; it is passed in because
    that worker itself runs isolated workers when it minimises a crash. Each case gets the time
    `clock` allows (by default the full `case_timeout`, with a fresh worker's grace on its first
    case) and teaches the clock how long finished cases take.

    Use as a context manager, or call `close`: the worker must not outlive its user.
    """

    def __init__(
        self,
        target: str,
        device: str,
        imports: Sequence[str] = (),
        case_timeout: float = DEFAULT_CASE_TIMEOUT_S,
        memory_limit: int | None = None,
        log_dir: Path | None = None,
        log_name: str = "isolated",
        *,
        entry: Entry,
        spare: bool = False,
        clock: CandidateClock | None = None,
    ):
        self.target = target
        self.case_timeout = case_timeout
        self.clock = clock or CandidateClock(case_timeout)
        self.should_stop: Callable[[], bool] = lambda: False  # polled while a case runs
        self.cases = 0
        self.crashes = 0  # cases that took their worker down
        self.seconds: list[float] = []  # wall time of each case, hung or not: what a candidate costs
        self._scratch = tempfile.TemporaryDirectory(prefix="numfuzz-isolated-") if log_dir is None else None
        run = RunSpec(target, device, imports=tuple(imports))
        settings = WorkerSettings(runs=(run,), case_timeout=case_timeout, memory_limit=memory_limit, thread_count=torch.get_num_threads())
        folder = Path(self._scratch.name) if self._scratch is not None else Path(log_dir)
        # no pool grace: the clock gives a fresh worker's first case its own time
        self.pool = Pool(2 if spare else 1, settings, folder, memory_limit, 0.0, log_name=log_name, entry=entry)

    def evaluate(self, graph: Graph, samples: list[list[torch.Tensor]], timeout: float | None = None) -> Outcome:
        """Run `graph` on these samples in the worker (static sizes, default options): `evaluate_case` of a bare case."""
        return self.evaluate_case(Case.from_tensors(graph, samples, self.target), timeout)

    def evaluate_case(self, case: Case, timeout: float | None = None) -> Outcome:
        """Run `case` in the worker, as its run specification asks (on this runner's target); the outcome, or the verdict of its death.

        `timeout` overrides the clock (a fresh worker gets the clock's extra on top). Raises Cancelled
        when `should_stop` turns true meanwhile.
        """
        case = case.with_run(case.run.with_changes(target=self.target))
        task: Task | None = Task("evaluate", self.cases, self.target, self.case_timeout, case.to_json())
        self.cases += 1
        fresh, begun = False, time.monotonic()
        started = begun
        try:
            while True:
                if self.should_stop():
                    raise Cancelled  # the case in flight dies with the pool, on close
                idle = self.pool.idle()
                if task is not None and idle:
                    worker = max(idle, key=lambda w: w.tasks_served)  # a warm one before the spare
                    fresh = worker.tasks_served == 0
                    task.timeout = self.clock.timeout(fresh) if timeout is None else timeout + self.clock.fresh_extra() * fresh
                    self.pool.dispatch(worker, task)
                    task, started = None, time.monotonic()
                for event in self.pool.poll(POLL_S):
                    if event.kind == "lost" and event.lost is not None:
                        self.crashes += 1
                        if not event.lost.in_target:  # eager or numfuzz died: no verdict of the target's (`boundary`)
                            return Outcome(Verdict.INVALID, f"{event.lost.verdict.value} outside the target: {event.lost.detail}")
                        if event.lost.eager_too_slow:
                            return Outcome(Verdict.INVALID, f"{event.lost.verdict.value}: {event.lost.eager_too_slow}")
                        return Outcome(event.lost.verdict, event.lost.detail)
                    if event.kind == "reply":
                        reply = event.reply
                        if isinstance(reply, ErrorReply):
                            raise IsolationError((reply.error.strip() or "unknown error").splitlines()[-1])
                        self.clock.observe(time.monotonic() - started, fresh)
                        return Outcome.from_json(reply.outcome)
        finally:
            self.seconds.append(time.monotonic() - begun)  # waiting for a ready worker included

    def close(self) -> None:
        self.pool.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def __enter__(self) -> IsolatedRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
