"""Inside a worker: what it does with each message (run a generated case, evaluate a given one, minimise a finding)."""

from __future__ import annotations

import dataclasses
import linecache
import resource
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from numfuzz.address import CaseAddress
from numfuzz.user_code import load_user_code
from numfuzz.workers.compiler_reach import LineTracer, generated_shapes
from numfuzz.workers.messages import (
    BatchReply,
    BatchRequest,
    CaseRequest,
    CaseResult,
    ErrorReply,
    Evaluated,
    EvaluateRequest,
    Minimized,
    MinimizeRequest,
    Progress,
    TargetInfo,
)
from numfuzz.workers.process_metrics import _proc_status, cpu_seconds, peak_rss_bytes, rss_bytes
from numfuzz.workers.recycle import RecyclePolicy
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.timed_target import TimedTarget

if TYPE_CHECKING:
    from numfuzz.corpus.case import Case


class WorkerTasks:
    """What a worker does with each message: run a generated case, evaluate a given one, minimise a finding.

    `entry` is the worker's own main, for the isolated workers that minimising a crash needs.
    `notify` sends a message to the campaign in the middle of a task (progress); `cancelled` says
    whether the campaign asked the task in hand to stop. The worker's main sets both.
    """

    notify: Callable[[Progress], None] = staticmethod(lambda msg: None)
    cancelled: Callable[[], bool] = staticmethod(lambda: False)

    def __init__(self, settings: WorkerSettings, entry: Callable[[Any, WorkerSettings, Any], None]):
        self.entry = entry
        import torch

        from numfuzz.environment import versions
        from numfuzz.targets import resolve

        if settings.thread_count:
            torch.set_num_threads(settings.thread_count)
        self.settings = settings
        for spec in settings.imports:
            load_user_code(spec)
        self.targets = {run.target: resolve(run.target) for run in settings.runs}  # resolved once, in this process
        for target in self.targets.values():  # warm: pay the compilers' imports before the first case
            target.available()
        versions()
        self.device: str = settings.device
        self.log_path = Path(settings.log_path)
        self.recycle = RecyclePolicy(settings.recycle_growth, settings.recycle_bytes)
        if settings.memory_limit and torch.device(self.device).type == "cpu":
            self._limit_address_space(settings.memory_limit)
        self.tracer = LineTracer() if settings.trace_share > 0 or settings.draws_children else None

    @contextmanager
    def reaching(self, address: CaseAddress, timed: TimedTarget, always: bool = False) -> Iterator[dict[str, Any]]:
        """Around a case: traced (by its address's draw, or `always`), every call into `timed` runs under the line
        tracer, and the dict gets the new compiler lines and the kernel shapes."""
        reach: dict[str, Any] = {}
        if self.tracer is None or not (always or address.traced(self.settings.trace_share)):
            yield reach
            return
        shapes: set[str] = set()
        timed.trace_with(self.tracer.tracing)
        try:
            with generated_shapes(shapes):
                yield reach
        finally:
            timed.trace_with(None)
            reach.update(lines=self.tracer.new_lines(), shapes=sorted(shapes))

    @staticmethod
    def _limit_address_space(limit: int) -> None:
        # An allocation past the limit then fails inside the target (an OOM finding, the worker
        # lives on) instead of pushing the machine into swap. Only on CPU: GPU runtimes reserve
        # huge address ranges. The room is the same as the parent's RSS watchdog allows.
        size, rss = _proc_status("self", "VmSize"), rss_bytes()
        if size is None or rss is None:
            return
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = size + max(limit - rss, 0)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    def target_info(self) -> dict[str, TargetInfo]:
        """What the campaign plans with, per target: read here, where the targets are resolved anyway."""
        from numfuzz.program.dtypes import PROGRAM_DTYPES

        info = {}
        for spec, target in self.targets.items():
            floor = getattr(target, "min_elements", None)
            floors = {dtype: int(floor(dtype, self.device)) for dtype in PROGRAM_DTYPES} if callable(floor) else {}
            info[spec] = TargetInfo(max(int(getattr(target, "batch_default", 1)), 1), floors)
        return info

    def run_case(self, msg: CaseRequest, made: Case | None = None) -> CaseResult | ErrorReply:
        """A generated case, judged alone; `made`: the case already made (by its batch, with what the batch's search added)."""
        from numfuzz.corpus.make import make_case
        from numfuzz.judge.execute import Outcome
        from numfuzz.judge.verdicts import Verdict
        from numfuzz.runner.case_runner import search_case

        start_cpu, start_wall = cpu_seconds(), time.perf_counter()
        case, outcome, error = None, None, ""
        timed = TimedTarget(self.targets[msg.target])
        generated = start_cpu
        try:
            with self.reaching(msg.address, timed, always=bool(msg.address.lineage)) as reach:
                settings = self.settings
                case = made or make_case(msg.address, settings.run_for(msg.target), settings.programs, settings.mix)
                generated = cpu_seconds()
                case, outcome = search_case(case, timed)
        except Exception:  # numfuzz's own bug, not the target's: the campaign keeps the case
            error = traceback.format_exc(limit=20)
        except BaseException as exc:  # a target that calls sys.exit and the like
            outcome = Outcome(Verdict.CRASH_RUN, f"target raised {type(exc).__name__}: {exc}"[:300])
        evaluated = cpu_seconds()
        linecache.clearcache()  # every case registers its sources there; a long run must not keep them
        rss = rss_bytes()
        target_cpu = timed.compile_cpu + timed.run_cpu
        common = dict(
            case=case.to_json() if case is not None and (outcome is None or outcome.verdict.is_kept) else None,
            ops=sorted({node.op for node in case.graph.nodes}) if case is not None else [],
            samples=len(case.samples) if case is not None else 0,
            rss=rss,
            peak_rss=peak_rss_bytes(),
            wall=time.perf_counter() - start_wall,
            recycle=self.recycle.should_leave(rss),
            cpu={
                "generate": generated - start_cpu,
                "target_compile": timed.compile_cpu,
                "target_run": timed.run_cpu,
                "eval": max(evaluated - generated - target_cpu, 0.0),  # eager, float64 reference, oracle
                "housekeeping": cpu_seconds() - evaluated,
            },
        )
        if error:
            return ErrorReply(msg.address.index, msg.target, error, **common)
        return CaseResult(msg.address.index, msg.target, outcome.to_json(), reach=reach or None, kinds=case.kinds, **common)

    def run_batch(self, msg: BatchRequest) -> BatchReply:
        """Several generated cases compiled as one program (`numfuzz.runner.batch`); one reply each."""
        from numfuzz.workers.batch_task import run_batch

        return run_batch(self, msg)

    def evaluate(self, msg: EvaluateRequest) -> Evaluated | ErrorReply:
        """Run a given case (for an isolated runner): its outcome, or numfuzz's own error."""
        from numfuzz.corpus.case import Case
        from numfuzz.runner.case_runner import run_case

        outcome, error = None, ""
        try:
            outcome = run_case(Case.from_json(msg.case), self.targets[msg.target], self.device).to_json()
        except Exception:
            error = traceback.format_exc(limit=20)
        linecache.clearcache()
        rss = rss_bytes()
        recycle = self.recycle.should_leave(rss)
        if error:
            return ErrorReply(msg.index, msg.target, error, rss=rss, recycle=recycle)
        return Evaluated(msg.index, outcome, rss, recycle)

    def minimize(self, msg: MinimizeRequest) -> Minimized:
        """The campaign's one call site of the minimiser; whatever it does, the worker reports back."""
        from numfuzz.workers.minimize_task import minimize_finding

        reply = minimize_finding(msg, self.targets[msg.target], self.settings, self.entry, self.notify, self.cancelled)
        linecache.clearcache()
        rss = rss_bytes()
        return dataclasses.replace(reply, rss=rss, recycle=self.recycle.should_leave(rss))
