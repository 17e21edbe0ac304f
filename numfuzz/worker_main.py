"""Inside a worker process: stay warm, run the cases the campaign sends, report outcomes.

Compiled code runs here, not in the campaign: when it segfaults, aborts, hangs or eats all
memory, only this process is lost and the campaign records a finding. Started by
`numfuzz.workers`; messages are plain dicts over a multiprocessing Connection.

Nothing heavy is imported at module level: torch comes in only after the worker has chosen
its compile settings, and the settings arrive as plain data for the same reason.
"""

from __future__ import annotations

import faulthandler
import linecache
import os
import resource
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from numfuzz.defaults import DEFAULT_CASE_TIMEOUT_S, DEFAULT_SAMPLES, FIRST_CASE_GRACE_S, WARMUP_CASES
from numfuzz.plugins import load_user_code

PARENT_POLL_S = 1.0


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the C++ compiler runs as one)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _proc_status(pid: int | str, key: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes(pid: int | str = "self") -> int | None:
    """Resident memory of a process, or None where /proc cannot tell."""
    return _proc_status(pid, "VmRSS")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


class TimedTarget:
    """Forwards to a target and books the CPU time spent inside it: compiling and running."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = inner.name
        self.compile_cpu = 0.0  # prepare, reset and the first call (which compiles)
        self.run_cpu = 0.0  # every later call

    def available(self) -> tuple[bool, str]:
        return self.inner.available()

    def reset(self) -> None:
        start = cpu_seconds()
        self.inner.reset()
        self.compile_cpu += cpu_seconds() - start

    def prepare(self, fn: Callable, device: str) -> Callable:
        start = cpu_seconds()
        compiled = self.inner.prepare(fn, device)
        self.compile_cpu += cpu_seconds() - start
        calls = [0]

        def timed(*args: Any) -> Any:
            begin = cpu_seconds()
            try:
                return compiled(*args)
            finally:
                spent = cpu_seconds() - begin
                if calls[0] == 0:
                    self.compile_cpu += spent
                else:
                    self.run_cpu += spent
                calls[0] += 1

        timed.numfuzz_inner = compiled  # type: ignore[attr-defined]
        return timed

    def final_trace(self, compiled: Callable) -> str | None:
        return self.inner.final_trace(getattr(compiled, "numfuzz_inner", compiled))


def _redirect_output(log_path: str) -> None:
    # Library chatter and faulthandler's dying words go to a per-worker log, not the progress bar.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _die_with_parent() -> None:
    """A worker must not outlive its campaign, even one killed with SIGKILL mid-case."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(3)

    threading.Thread(target=watch, name="numfuzz-parent-watch", daemon=True).start()


@dataclass
class RecyclePolicy:
    """When a worker should leave (the pool starts a fresh one) because its memory grew too far.

    Compiled programs leave state behind that no reset reaches: about 0.4 MiB a case under
    torch.compile, measured, mostly Python objects in the compilers' caches (fake-tensor
    dispatch entries, dynamo bytecode, registered ops) and kernel libraries that cannot be
    unloaded. A fresh process is the only sure way back.
    """

    growth: int | None  # bytes past the warm level (0: leave after every case)
    cap: int | None = None  # bytes of RSS, whatever the growth
    warm: int = 0  # the highest RSS over the first WARMUP_CASES cases
    seen: int = 0

    def should_leave(self, rss: int | None) -> bool:
        if rss is None:
            return False
        self.seen += 1
        if self.seen <= WARMUP_CASES:
            self.warm = max(self.warm, rss)
        grown = self.growth is not None and rss >= self.warm + self.growth
        return grown or bool(self.cap and rss > self.cap)


class _Worker:
    def __init__(self, settings: dict[str, Any]):
        import torch

        from numfuzz.cases import versions
        from numfuzz.generator import GenConfig
        from numfuzz.targets import resolve

        if settings.get("threads"):
            torch.set_num_threads(settings["threads"])
        self.imports: list[str] = list(settings["imports"])
        for spec in self.imports:
            load_user_code(spec)
        self.targets = {spec: resolve(spec) for spec in settings["targets"]}
        for target in self.targets.values():  # warm: pay the compilers' imports before the first case
            target.available()
        versions()
        self.device: str = settings["device"]
        self.samples: int = settings.get("samples", DEFAULT_SAMPLES)  # an isolated worker only runs given cases
        self.gen = GenConfig(**settings.get("gen", {}))
        self.case_timeout: float = settings.get("case_timeout", DEFAULT_CASE_TIMEOUT_S)
        self.memory_limit: int | None = settings.get("memory_limit_bytes")
        self.log_path = Path(settings["log_path"])
        self.recycle = RecyclePolicy(settings.get("recycle_growth_bytes"), settings.get("recycle_bytes"))
        limit = settings.get("memory_limit_bytes")
        if limit and torch.device(self.device).type == "cpu":
            self._limit_address_space(limit)

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

    def run_case(self, msg: dict[str, Any]) -> dict[str, Any]:
        from numfuzz.cases import make_case, run_case
        from numfuzz.execute import Outcome
        from numfuzz.verdicts import Verdict

        start_cpu, start_wall = cpu_seconds(), time.perf_counter()
        reply: dict[str, Any] = {"kind": "result", "index": msg["index"], "target": msg["target"]}
        case, outcome = None, None
        timed = TimedTarget(self.targets[msg["target"]])
        generated = start_cpu
        try:
            case = make_case(msg["seed"], msg["target"], self.samples, self.gen, self.device, self.imports)
            generated = cpu_seconds()
            outcome = run_case(case, timed, self.device)
        except Exception:  # numfuzz's own bug, not the target's: the campaign keeps the case
            reply.update(kind="error", error=traceback.format_exc(limit=20))
        except BaseException as exc:  # a target that calls sys.exit and the like
            outcome = Outcome(Verdict.CRASH_RUN, f"target raised {type(exc).__name__}: {exc}"[:300])
        evaluated = cpu_seconds()
        linecache.clearcache()  # every case registers its sources there; a long run must not keep them
        if outcome is not None:
            reply["outcome"] = outcome.to_json()
        if case is not None and (outcome is None or outcome.verdict.is_finding):
            reply["case"] = case.to_json()
        rss = rss_bytes()
        target_cpu = timed.compile_cpu + timed.run_cpu
        reply.update(
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
        return reply

    def evaluate(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Run a given case (for an isolated runner): its outcome, or numfuzz's own error."""
        from numfuzz.cases import run_case
        from numfuzz.corpus import Case

        reply: dict[str, Any] = {"kind": "evaluated", "index": msg["index"]}
        try:
            reply["outcome"] = run_case(Case.from_json(msg["case"]), self.targets[msg["target"]], self.device).to_json()
        except Exception:
            reply.update(kind="error", error=traceback.format_exc(limit=20))
        linecache.clearcache()
        rss = rss_bytes()
        reply.update(rss=rss, recycle=self.recycle.should_leave(rss))
        return reply

    def minimize(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The campaign's one call site of the minimiser; whatever it does, the worker reports back."""
        from numfuzz.corpus import Case

        reply: dict[str, Any] = {"kind": "minimized", "finding": msg["finding"], "key": msg["key"], "case": None}
        try:
            from numfuzz.minimize import minimize_case
            from numfuzz.signature import recorded_outcome

            case = Case.from_json(msg["case"])
            # stop before the campaign's deadline, leaving room for one more candidate (a hang, a
            # cold start), to hand back the smallest case so far instead of being killed
            limit = msg.get("timeout")
            seconds = max(limit - self.case_timeout - FIRST_CASE_GRACE_S, limit / 2) if limit else None
            target = self.targets[msg["target"]]
            if recorded_outcome(case).verdict.kills_process:  # each candidate must run in a process it may kill
                from numfuzz.isolation import IsolatedRunner

                isolated = IsolatedRunner(
                    msg["target"], self.device, self.imports, self.case_timeout, self.memory_limit, self.log_path.parent, f"{self.log_path.stem}-isolated"
                )
                with isolated as runner:
                    result = minimize_case(case, target, self.device, max_seconds=seconds, runner=runner.evaluate)
            else:
                result = minimize_case(case, target, self.device, max_seconds=seconds)
            reply["summary"] = result.summary()
            if result.reproduced:
                reply["case"] = result.case.to_json()
        except Exception:
            reply["summary"] = "minimiser failed: " + traceback.format_exc(limit=8).strip().splitlines()[-1]
            reply["error"] = traceback.format_exc(limit=20)
        linecache.clearcache()
        rss = rss_bytes()
        reply.update(rss=rss, recycle=self.recycle.should_leave(rss))
        return reply


def serve(conn: Any, settings: dict[str, Any]) -> None:
    """Entry point of a worker process."""
    os.setsid()  # its own process group: a kill reaches compiler subprocesses, Ctrl-C does not
    _redirect_output(settings["log_path"])
    faulthandler.enable()  # a segfault leaves a Python traceback in the worker log
    _die_with_parent()
    # N workers share the cores; a compile pool per worker would oversubscribe them and hide
    # compile time in processes this worker cannot account for.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    # Generated graphs do not repeat, so Inductor's on-disk FX graph and AOT autograd caches never
    # hit; they only grow (0.15 MB a graph, three quarters of its cache's growth in a measured
    # hour-long campaign) and a campaign of days would fill the disk. Compiles are no slower.
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "0")
    # torch.fx's progress bars would give tqdm a multiprocessing lock, a named semaphore that a
    # worker leaving by os._exit (or by a crash) could not unlink; a thread lock does here.
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())
    started = time.perf_counter()
    try:
        worker = _Worker(settings)
    except BaseException:
        conn.send({"kind": "failed", "error": traceback.format_exc(limit=20)})
        os._exit(1)
    conn.send({"kind": "ready", "pid": os.getpid(), "startup_s": time.perf_counter() - started, "rss": rss_bytes()})
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg["kind"] == "stop":
            break
        handler = {"case": worker.run_case, "evaluate": worker.evaluate, "minimize": worker.minimize}[msg["kind"]]
        reply = handler(msg)
        conn.send(reply)
        if reply.get("recycle"):
            break
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip interpreter teardown: compiler atexit hooks can take seconds
