"""Cells judged in worker processes, each cell's record handed back to the parent as it finishes.

A worker is a spawned process that sets the compile environment a campaign's worker has (one compile thread, the
fast linker; `workers.compile_env`), imports the user's `--import` modules once and judges cells one
at a time, so that torch and transformers load once per worker. A cell past its time limit has its
worker killed (`timeout`); a worker that dies (a segfault in compiled code, an abort, running out
of memory) costs its cell a record of that death and is replaced. No cell starts past the sweep's
time budget. With Ray (`ray_records`) each cell is a Ray task instead, on whatever cluster
`ray.init(address)` reaches.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from numfuzz.sweep.grid import Cell


@dataclass(frozen=True)
class Settings:
    out: Path
    samples: int = 2
    seed: int = 0
    device: str = "cpu"
    imports: tuple[str, ...] = ()
    cell_timeout_s: float = 600.0


def _serve(conn: Connection, settings: Settings) -> None:
    """A worker: judges each cell it is sent until it is sent None."""
    from numfuzz.workers.compile_env import set_compile_environment

    set_compile_environment(graph_caches=True)  # before torch is imported: one compile thread a worker, the fast linker
    from numfuzz.sweep.cell import judge_cell
    from numfuzz.user_code import load_user_code

    for path in settings.imports:
        load_user_code(path)
    while (cell := conn.recv()) is not None:
        conn.send(judge_cell(cell, settings.out, settings.samples, settings.seed, settings.device))


def died(cell: Cell, verdict: str, detail: str, seconds: float) -> dict[str, Any]:
    """The record of a cell whose worker did not hand one back."""
    return {**cell.to_json(), "key": cell.key, "verdict": verdict, "finding": True, "detail": detail, "seconds": round(seconds, 2)}


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0 and -exitcode == signal.SIGSEGV:
        return "segfault"
    if exitcode is not None and exitcode < 0 and -exitcode == signal.SIGABRT:
        return "abort"
    return "oom" if exitcode is not None and -exitcode == signal.SIGKILL else "crash_run"


class _Worker:
    def __init__(self, context: Any, settings: Settings):
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, settings), daemon=True)
        self.process.start()
        theirs.close()
        self.cell: Cell | None = None
        self.since = 0.0

    def give(self, cell: Cell) -> None:
        self.cell, self.since = cell, time.monotonic()
        self.conn.send(cell)

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


def records(cells: list[Cell], settings: Settings, workers: int = 1, budget_s: float | None = None) -> Iterator[dict[str, Any]]:
    """Each cell's record as it finishes, judged by `workers` processes; cells not started when the budget is spent are left out."""
    context = multiprocessing.get_context("spawn")
    started, todo = time.monotonic(), list(cells)
    pool = [_Worker(context, settings) for _ in range(max(1, min(workers, len(cells))))]
    try:
        while todo or any(w.cell is not None for w in pool):
            over = budget_s is not None and time.monotonic() - started > budget_s
            for w in pool:
                if w.cell is None and todo and not over:
                    w.give(todo.pop(0))
            busy = [w for w in pool if w.cell is not None]
            if not busy:
                break
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=5)
            for k, w in enumerate(pool):
                if w.cell is None:
                    continue
                elapsed = time.monotonic() - w.since
                gone = w.process.sentinel in ready
                if w.conn in ready:
                    try:
                        record = w.conn.recv()
                    except EOFError:  # the worker's end closed: it died
                        record, gone = None, True
                    if record is not None:
                        w.cell = None
                        yield record
                        continue
                if gone or elapsed > settings.cell_timeout_s:
                    if gone:
                        w.process.join(10)  # its exit code says how it died
                    w.stop()
                    verdict = _death(w.process.exitcode) if gone else "timeout"
                    said = f"the worker died (exit code {w.process.exitcode})" if gone else f"past {settings.cell_timeout_s:g} s"
                    yield died(w.cell, verdict, said, elapsed)
                    pool[k] = _Worker(context, settings)
    finally:
        for w in pool:
            if w.process.is_alive() and w.cell is None:
                w.conn.send(None)
            w.stop()


def ray_records(cells: list[Cell], settings: Settings, address: str, budget_s: float | None = None) -> Iterator[dict[str, Any]]:
    """Each cell a Ray task on the cluster at `address` ("auto", or "local" for one started here); records as they finish."""
    import ray

    from numfuzz.workers.ray_pool import LOCAL, init_ray

    init_ray(ray, address, {})  # "local": a Ray instance on the loopback interface only, as a campaign's
    try:
        yield from _ray_cells(ray, cells, settings, budget_s)
    finally:
        if address == LOCAL:
            ray.shutdown()


def _ray_cells(ray: Any, cells: list[Cell], settings: Settings, budget_s: float | None) -> Iterator[dict[str, Any]]:
    remote = ray.remote(max_retries=0)(_judge_remotely)
    started, todo, running = time.monotonic(), list(cells), {}
    while todo or running:
        while todo and len(running) < max(1, int(ray.cluster_resources().get("CPU", 1))) and not (budget_s and time.monotonic() - started > budget_s):
            cell = todo.pop(0)
            running[remote.remote(cell, settings)] = (cell, time.monotonic())
        if not running:
            break
        done, _ = ray.wait(list(running), num_returns=1, timeout=5)
        for ref in done:
            cell, since = running.pop(ref)
            try:
                yield ray.get(ref)
            except Exception as exc:  # the task's process died: its cell's record says so
                yield died(cell, "crash_run", f"the Ray task failed: {type(exc).__name__}", time.monotonic() - since)
        for ref, (cell, since) in list(running.items()):
            if time.monotonic() - since > settings.cell_timeout_s:
                ray.cancel(ref, force=True)
                running.pop(ref)
                yield died(cell, "timeout", f"past {settings.cell_timeout_s:g} s", time.monotonic() - since)


def _judge_remotely(cell: Cell, settings: Settings) -> dict[str, Any]:
    from numfuzz.sweep.cell import judge_cell
    from numfuzz.user_code import load_user_code

    for path in settings.imports:
        load_user_code(path)
    return judge_cell(cell, settings.out, settings.samples, settings.seed, settings.device)
