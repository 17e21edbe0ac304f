"""The worker pool, parent side: warm worker processes that run cases, and what their deaths mean.

A worker is started once and serves case after case (a cold process costs seconds of imports).
The pool watches each one: a worker that dies of a signal, runs past its deadline or grows past
its memory limit while it holds a task is killed if need be, restarted, and its task comes back
as lost with a verdict (segfault, abort, timeout, oom) for the campaign to record.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, Callable

from numfuzz.address import CaseAddress
from numfuzz.judge.verdicts import Verdict
from numfuzz.targets.boundary import eager_seconds, shared_flag, too_slow_to_judge, was_inside
from numfuzz.workers.messages import (
    BatchRequest,
    Cancel,
    CaseRequest,
    EvaluateRequest,
    Failed,
    Message,
    MinimizeRequest,
    Progress,
    Ready,
    Request,
    Stop,
)
from numfuzz.workers.process_metrics import rss_bytes
from numfuzz.workers.settings import WorkerSettings

STARTUP_TIMEOUT_S = 300.0  # a cold worker imports torch and thunder: seconds, minutes on a loaded machine
MAX_FAILED_STARTS = 3  # in a row, with no worker ever ready: the setup is broken, not a target
LOG_TAIL_BYTES = 4000
SIGNAL_VERDICTS = {
    signal.SIGSEGV: Verdict.SEGFAULT,
    signal.SIGBUS: Verdict.SEGFAULT,
    signal.SIGILL: Verdict.SEGFAULT,
    signal.SIGFPE: Verdict.SEGFAULT,
    signal.SIGABRT: Verdict.ABORT,
    signal.SIGKILL: Verdict.OOM,  # nobody here sent it: the kernel's OOM killer does
}


Entry = Callable[[Any, WorkerSettings, Any], None]  # a worker process's main: serve(connection, settings, flag)


class WorkerStartError(RuntimeError):
    """Workers cannot start at all (bad import, broken install); the message says why."""


@dataclass
class Task:
    """The campaign's record of one piece of work for a worker; `message` is what the worker is sent."""

    kind: str  # "case" (generate and run), "batch" (several, compiled together), "evaluate" (run the given case) or "minimize"
    index: int  # the campaign's case index
    target: str
    timeout: float
    case: dict | None = None  # evaluate: the case to run; minimize: the finding to shrink
    finding: str = ""  # minimize: the file stem of the saved finding
    key: str = ""  # minimize: its dedupe key
    budget: float | None = None  # minimize: the minimiser's own time budget
    clock: dict[str, Any] | None = None  # minimize: the target's CandidateClock, as JSON
    address: CaseAddress | None = None  # case: where it sits, from which its every draw derives
    items: list[CaseAddress] = field(default_factory=list)  # batch: each case's address

    def message(self) -> Request:
        if self.kind == "case":
            return CaseRequest(self.target, self.address)
        if self.kind == "batch":
            return BatchRequest(self.target, tuple(self.items))
        if self.kind == "evaluate":
            return EvaluateRequest(self.index, self.target, self.case or {})
        if self.kind == "minimize":
            return MinimizeRequest(self.target, self.case or {}, self.finding, self.key, self.timeout, self.budget, self.clock)
        raise ValueError(f"unknown task kind {self.kind!r}")


@dataclass
class Lost:
    """A task whose worker died or was killed while holding it."""

    task: Task
    verdict: Verdict
    detail: str
    log_tail: str
    slot: int
    in_target: bool = True  # inside a call into the target when it died (`boundary`); else eager's or numfuzz's doing
    eager_s: float = 0.0  # eager's own seconds on the task (`boundary.eager_seconds`)

    @property
    def eager_too_slow(self) -> str:
        """Why a timeout in the target says nothing of it (eager's own run took much of the limit); "" where it does."""
        if self.verdict is not Verdict.TIMEOUT or not too_slow_to_judge(self.eager_s, self.task.timeout):
            return ""
        return f"eager itself took {self.eager_s:.0f} s of the task's {self.task.timeout:.0f} s limit: too slow to tell a hang from the work"


@dataclass(frozen=True)
class Restarted:
    """Why a worker slot has a fresh process, for the campaign's counts and log."""

    why: str  # a verdict's value, "recycled", "died idle", "failed start" or "host lost"
    served: int  # tasks the old process served
    rss: int | None  # its last known RSS, bytes


@dataclass
class Event:
    kind: str  # "ready" (a worker started), "reply", "lost", "restarted", or "progress" (the task goes on)
    slot: int
    reply: Any = None  # ready: messages.Ready; reply: a messages.Reply; progress: messages.Progress; restarted: Restarted
    lost: Lost | None = None
    task: Task | None = None  # for a reply: the task it answers


class Worker:
    def __init__(self, slot: int, settings: WorkerSettings, log_dir: Path, context: Any, entry: Entry, log_name: str = "worker"):
        self.slot = slot
        self.entry = entry
        self.settings = settings
        self.log_path = log_dir / f"{log_name}-{slot}.log"
        self.context = context
        self.proc: Any = None
        self.inside: Any = None  # shared memory: whether the process is in its target, eager's seconds (`boundary`)
        self.conn: Any = None
        self.ready = False
        self.task: Task | None = None
        self.deadline = 0.0
        self.killed_for: tuple[Verdict, str] | None = None
        self.tasks_served = 0  # since this process started
        self.log_offset = 0
        self.rss: int | None = None
        self.starts = 0
        self.eof = False  # the pipe closed: the process is on its way out
        self.leaving = False  # it said it would exit after its reply (memory)
        self.start_error = ""

    def start(self) -> None:
        parent_end, child_end = self.context.Pipe()
        settings = self.settings.with_changes(log_path=str(self.log_path))
        self.inside = shared_flag(self.context)
        self.proc = self.context.Process(target=self.entry, args=(child_end, settings, self.inside), name=f"numfuzz-worker-{self.slot}")
        self.proc.start()
        child_end.close()
        self.conn, self.ready, self.task, self.killed_for, self.tasks_served = parent_end, False, None, None, 0
        self.eof, self.leaving, self.start_error = False, False, ""
        self.deadline = time.monotonic() + STARTUP_TIMEOUT_S
        self.starts += 1

    @property
    def idle(self) -> bool:
        return self.ready and self.task is None and not self.leaving

    def assign(self, task: Task, grace: float = 0.0) -> None:
        try:
            self.log_offset = self.log_path.stat().st_size
        except OSError:
            self.log_offset = 0
        self.task = task
        self.deadline = time.monotonic() + task.timeout + grace
        self.conn.send(task.message())

    def kill(self, why: tuple[Verdict, str] | None = None) -> None:
        """SIGKILL the worker's whole process group (compiler subprocesses included)."""
        if self.killed_for is None:
            self.killed_for = why
        if self.proc is None or self.proc.exitcode is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:  # not yet its own group leader
            self.proc.kill()
        self.proc.join(10)

    def log_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(self.log_offset, size - LOG_TAIL_BYTES))
                return handle.read().decode(errors="replace")
        except OSError:
            return ""

    def death(self) -> tuple[Verdict, str]:
        """What the end of this process says about the task it held."""
        if self.killed_for is not None:
            return self.killed_for
        self.proc.join(10)
        code = self.proc.exitcode
        if code is not None and code < 0:
            sig = signal.Signals(-code)
            verdict = SIGNAL_VERDICTS.get(sig, Verdict.CRASH_RUN)
            detail = f"worker killed by {sig.name}" + (" (the kernel's OOM killer?)" if sig == signal.SIGKILL else "")
        else:
            verdict, detail = Verdict.CRASH_RUN, f"worker exited with status {code}"
        fatal = next((line for line in self.log_tail().splitlines() if line.startswith("Fatal Python error")), "")
        return verdict, f"{detail}: {fatal}" if fatal else detail


class Pool:
    """N warm workers. `poll` turns everything that happens to them into events."""

    def __init__(
        self,
        count: int,
        settings: WorkerSettings,
        log_dir: Path,
        memory_limit: int | None = None,
        first_case_grace: float = 0.0,
        log_name: str = "worker",
        *,
        entry: Entry,
    ):
        log_dir.mkdir(parents=True, exist_ok=True)
        context = multiprocessing.get_context("spawn")  # never fork a process that holds torch threads
        self.workers = [Worker(slot, settings, log_dir, context, entry, log_name) for slot in range(count)]
        self.memory_limit = memory_limit
        self.first_case_grace = first_case_grace
        self.failed_starts = 0  # in a row
        for worker in self.workers:
            worker.start()

    def idle(self) -> list[Worker]:
        return [w for w in self.workers if w.idle]

    def dispatch(self, worker: Worker, task: Task) -> None:
        worker.assign(task, self.first_case_grace if worker.tasks_served == 0 else 0.0)

    def cancel(self, worker: Worker, grace: float) -> None:
        """Ask the worker to stop its task early and reply; killed if no reply comes within `grace` s."""
        if worker.task is None or worker.proc is None:
            return
        try:
            worker.conn.send(Cancel())
        except OSError:
            pass
        worker.deadline = min(worker.deadline, time.monotonic() + grace)

    def poll(self, timeout: float) -> list[Event]:
        """Wait up to `timeout` s; return starts, replies, lost tasks and restarts. May raise WorkerStartError."""
        live = [w for w in self.workers if w.proc is not None]
        waitables = [w.conn for w in live if not w.eof] + [w.proc.sentinel for w in live]
        soonest = min((w.deadline for w in live), default=time.monotonic() + timeout)
        ready = set(wait(waitables, max(0.0, min(timeout, soonest - time.monotonic()))))
        events: list[Event] = []
        for worker in live:
            if worker.conn in ready or worker.proc.sentinel in ready:
                events.extend(self._drain(worker))
        now = time.monotonic()
        for worker in self.workers:
            if worker.proc is None or worker.proc.exitcode is not None:
                continue
            if now > worker.deadline:
                if worker.task is None:
                    worker.kill((Verdict.TIMEOUT, f"worker not ready after {STARTUP_TIMEOUT_S:.0f} s"))
                else:
                    worker.kill((Verdict.TIMEOUT, f"{worker.task.kind} ran past its {worker.task.timeout:g} s limit"))
                events.extend(self._drain(worker))
            elif worker.task is not None and self.memory_limit:
                worker.rss = rss_bytes(worker.proc.pid)
                if worker.rss and worker.rss > self.memory_limit:
                    worker.kill((Verdict.OOM, f"worker RSS {worker.rss >> 20} MiB passed the limit of {self.memory_limit >> 20} MiB"))
                    events.extend(self._drain(worker))
        return events

    def _drain(self, worker: Worker) -> list[Event]:
        events: list[Event] = []
        while not worker.eof:
            try:
                if not worker.conn.poll():
                    break
                msg = worker.conn.recv()
            except (EOFError, OSError):
                worker.eof = True
                break
            event = self._handle(worker, msg)
            if event is not None:
                events.append(event)
        if worker.eof and worker.proc.exitcode is None:
            worker.proc.join(1)
        if worker.proc.exitcode is not None or worker.killed_for is not None:
            events.extend(self._buried(worker))
        return events

    def _handle(self, worker: Worker, msg: Message) -> Event | None:
        if isinstance(msg, Ready):
            worker.ready, worker.deadline = True, float("inf")
            self.failed_starts = 0
            return Event("ready", worker.slot, reply=msg)  # with what it learnt of its targets
        if isinstance(msg, Failed):
            lines = msg.error.strip().splitlines()
            worker.start_error = lines[-1] if lines else "unknown error"
            return None
        if isinstance(msg, Progress):  # from the middle of a task, which goes on
            return Event("progress", worker.slot, reply=msg, task=worker.task)
        task, worker.task, worker.deadline = worker.task, None, float("inf")
        worker.tasks_served += 1
        worker.rss = msg.rss or worker.rss
        worker.leaving = msg.recycle
        return Event("reply", worker.slot, reply=msg, task=task)

    def _buried(self, worker: Worker) -> list[Event]:
        """The worker is gone: report its task as lost, and start a fresh one."""
        worker.kill()
        events = []
        if worker.task is not None:
            verdict, detail = worker.death()
            lost = Lost(worker.task, verdict, detail, worker.log_tail(), worker.slot, was_inside(worker.inside), eager_seconds(worker.inside))
            events.append(Event("lost", worker.slot, lost=lost))
            why = verdict.value
        elif worker.ready:
            why = "recycled" if worker.leaving else "died idle"
        else:
            why = "failed start"
            self.failed_starts += 1
            if self.failed_starts >= MAX_FAILED_STARTS:
                reason = worker.start_error or worker.death()[1]
                self.close()
                raise WorkerStartError(f"workers cannot start: {reason} (see {worker.log_path})")
        served, rss = worker.tasks_served, worker.rss
        worker.conn.close()
        worker.conn, worker.proc, worker.task = None, None, None
        worker.start()
        events.append(Event("restarted", worker.slot, reply=Restarted(why, served, rss)))
        return events

    def close(self) -> None:
        """Stop every worker: politely when idle, by SIGKILL otherwise."""
        for worker in self.workers:
            if worker.proc is not None and worker.idle:
                try:
                    worker.conn.send(Stop())
                except OSError:
                    pass
        deadline = time.monotonic() + 5.0
        for worker in self.workers:
            if worker.proc is not None:
                worker.proc.join(max(0.0, deadline - time.monotonic()) if worker.idle else 0)
                worker.kill()
                if worker.conn is not None:
                    worker.conn.close()
                worker.proc, worker.conn = None, None
