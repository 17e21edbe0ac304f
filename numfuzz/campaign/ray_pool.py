"""The worker pool on a Ray cluster: the same events as `pool.Pool`, with each worker hosted by a Ray actor.

Each actor is a thin host: it starts one ordinary worker process on its node (a `Pool` of one)
and relays tasks to it, so a segfault, abort, hang or OOM is caught exactly as on one machine and
comes back as a lost task with that verdict. The actor itself never runs compiled code. An actor
that dies (its node is lost, it is killed) costs only the tasks sent to it, which run again on a
replacement actor or a free one; only a task that takes down MAX_HOST_LOSSES hosts in a row is
recorded, as a crash. Each actor may hold a second case behind the one it runs, so that its worker
does not wait for the round trip to the driver between cases.

Ray is optional: it is imported here only, when a pool is made.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numfuzz
from numfuzz.campaign.defaults import default_memory_limit
from numfuzz.campaign.pool import MAX_FAILED_STARTS, STARTUP_TIMEOUT_S, Entry, Event, Lost, Pool, Task, WorkerStartError
from numfuzz.judge.verdicts import Verdict

LOCAL = "local"  # --ray local: start a Ray instance on this machine, bound to the loopback interface
MAX_HOST_LOSSES = 3  # hosts lost in a row while holding one task: it is the task, not the cluster
QUEUE_DEPTH = 2  # tasks sent to one actor at a time: the next case waits there, not on the driver
RELAY_POLL_S = 0.5
STOP_WAIT_S = 10.0
CONNECT_TIMEOUT_S = 10.0
OBJECT_STORE_BYTES = 128 * 2**20  # tasks and replies are small JSON; Ray's default takes 30% of RAM


class WorkerHost:
    """Inside a Ray actor: one ordinary numfuzz worker process on this node, and the relay to it."""

    def __init__(self, slot: int, settings: dict[str, Any], log_dir: str, memory_limit: int | None, first_case_grace: float, workers: int, entry: Entry):
        settings = dict(settings)
        resource = "GPU" if str(settings["device"]).startswith("cuda") else "CPU"
        here = min(_node_resource(resource), workers)  # workers that can share this node
        if memory_limit is None:  # an even share of this node's memory, as the local pool takes of its machine's
            memory_limit = default_memory_limit(here)
        memory_limit = memory_limit or None  # 0: no limit
        settings.update(
            memory_limit_bytes=memory_limit,
            recycle_bytes=int(0.75 * memory_limit) if memory_limit else None,  # as Campaign._worker_settings
            threads=1 if resource == "CPU" else max(1, _node_resource("CPU") // max(here, 1)),
        )
        # multiprocessing's spawn runs the parent's main script again in the child, here Ray's worker
        # script: it would import Ray into every worker process, seconds of a start for nothing.
        main = sys.modules.get("__main__")
        if main is not None and getattr(main, "__spec__", None) is None and str(getattr(main, "__file__", "")).endswith("default_worker.py"):
            del main.__file__
        folder = Path(log_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:  # another node without the driver's file system: logs stay on this node
            folder = Path(tempfile.mkdtemp(prefix="numfuzz-ray-"))
        self.pool = Pool(1, settings, folder, memory_limit, first_case_grace, log_name=f"ray-worker-{slot}", entry=entry)

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": _node_id()}

    def run(self, task: Task) -> list[Event]:
        """Hand `task` to the worker and wait for its answer: a reply, or a lost task (and restarts)."""
        events: list[Event] = []
        pending: Task | None = task
        while True:
            if pending is not None and self.pool.idle():
                self.pool.dispatch(self.pool.workers[0], pending)
                pending = None
            for event in self.pool.poll(RELAY_POLL_S):
                events.append(event)
            if pending is None and any(e.kind in ("reply", "lost") for e in events):
                return events

    def stop(self) -> None:
        self.pool.close()


def _node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def _node_resource(name: str) -> int:
    import ray

    me = _node_id()
    for node in ray.nodes():
        if node.get("NodeID") == me:
            return max(int(node.get("Resources", {}).get(name, 1)), 1)
    return 1


class RayWorker:
    """The driver's view of one worker slot: its actor, and the tasks sent to it, in order."""

    def __init__(self, slot: int):
        self.slot = slot
        self.actor: Any = None
        self.up: Any = None  # the actor's info() call: ready once the actor is constructed
        self.node = ""
        self.pid = 0
        self.queue: list[Task] = []  # the first runs, the others wait on the actor
        self.calls: list[Any] = []  # their run() calls; empty until the actor is up
        self.deadline = float("inf")  # for the first call
        self.tasks_served = 0  # since its worker process started
        self.starts = 0

    @property
    def ready(self) -> bool:
        return self.up is None and self.actor is not None

    @property
    def task(self) -> Task | None:
        """A case it holds, else whatever it holds: the campaign waits for cases in flight."""
        return next((t for t in self.queue if t.kind == "case"), self.queue[0] if self.queue else None)

    @property
    def room(self) -> bool:
        # A case may wait behind a case (that hides the round trip to the driver), never behind a
        # minimisation, which may take many minutes.
        return self.ready and (not self.queue or (len(self.queue) < QUEUE_DEPTH and all(t.kind == "case" for t in self.queue)))


def connect(address: str, runtime_env: dict[str, Any]) -> bool:
    """ray.init for `address` ('local': a new instance on loopback); True when this call started Ray."""
    import ray

    if ray.is_initialized():
        return False
    # Ray's own handlers would abort the driver on SIGTERM; the campaign's stop it gracefully.
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        _init(ray, address, runtime_env)
    finally:
        for sig, handler in handlers.items():
            if handler is not None and threading.current_thread() is threading.main_thread():
                signal.signal(sig, handler)
    return True


def _init(ray: Any, address: str, runtime_env: dict[str, Any]) -> None:
    import ray._private.ray_constants as ray_constants

    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "runtime_env": runtime_env, "namespace": "numfuzz"}
    if address != LOCAL:
        _check_reachable(address)
        ray.init(address=address, **quiet)
        return
    # Ray swaps 127.0.0.1 for the machine's public address unless clusters are off; with it kept,
    # the GCS, raylet and workers listen on the loopback interface only.
    clusters = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(
            num_cpus=os.cpu_count() or 1,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            object_store_memory=OBJECT_STORE_BYTES,
            _system_config={"worker_niceness": 0},  # Ray's default, 15, yields the workers' CPU to anything else here
            **quiet,
        )
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = clusters


def _check_reachable(address: str) -> None:
    """Fail fast on a HOST:PORT nobody listens on: ray.init would retry it for minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return  # auto, ray://...: Ray's own business
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ConnectionError(f"nothing answers there ({exc.strerror or exc})") from None


class RayPool:
    """Worker slots on a Ray cluster, one actor each; `poll` turns what happens to them into pool events."""

    def __init__(
        self,
        address: str,
        cap: int | None,
        settings: dict[str, Any],
        log_dir: Path,
        memory_limit: int | None,
        first_case_grace: float = 0.0,
        *,
        entry: Entry,
    ):
        import ray

        self.ray = ray
        root = str(Path(numfuzz.__file__).resolve().parent.parent)  # the actors import this numfuzz
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        try:
            self.started = connect(address, {"env_vars": {"PYTHONPATH": path}})
        except Exception as exc:  # ConnectionError, ValueError, RuntimeError: Ray's own words, on one line
            raise WorkerStartError(f"cannot reach the Ray cluster at {address}: {_one_line(exc)}") from None
        gpu = str(settings["device"]).startswith("cuda")
        resource = "GPU" if gpu else "CPU"
        offered = int(ray.cluster_resources().get(resource, 0))
        count = min(offered, cap) if cap else offered
        if count < 1:
            self.close()
            raise WorkerStartError(f"the Ray cluster at {address} offers no {resource} for a worker")
        self.host = ray.remote(WorkerHost).options(num_gpus=1, num_cpus=1) if gpu else ray.remote(WorkerHost).options(num_cpus=1)
        self.args = (settings, str(log_dir), memory_limit, first_case_grace, count, entry)
        self.first_case_grace = first_case_grace
        self.failed_starts = 0  # in a row, with no task ever answered
        self.losses: dict[int, int] = {}  # id(task) -> hosts lost in a row while running it
        self.workers = [RayWorker(slot) for slot in range(count)]
        for worker in self.workers:
            self._start(worker)

    # --- the Pool interface -----------------------------------------------------------------------

    def idle(self) -> list[RayWorker]:
        free = [w for w in self.workers if w.ready and not w.queue]
        # Tasks whose host was lost wait for its replacement, unless a worker is free now (the
        # replacement may wait long for room on a cluster that lost a node).
        for stuck in [w for w in self.workers if w.queue and not w.ready]:
            while stuck.queue and free:
                self._send(free.pop(0), stuck.queue.pop(0))
        return free + [w for w in self.workers if w.queue and w.room]  # empty ones first

    def dispatch(self, worker: RayWorker, task: Task) -> None:
        self.losses.pop(id(task), None)
        self._send(worker, task)

    def poll(self, timeout: float) -> list[Event]:
        """Wait up to `timeout` s; return replies, lost tasks and restarts. May raise WorkerStartError."""
        refs = [w.up for w in self.workers if w.up is not None] + [c for w in self.workers for c in w.calls]
        events: list[Event] = []
        if not refs:
            time.sleep(timeout)
            return events
        done, _ = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if done:  # and whatever else is done by now
            done, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        done_set = set(done)
        for worker in self.workers:
            if worker.up is not None and worker.up in done_set:
                events += self._started(worker)
            while worker.calls and worker.calls[0] in done_set:  # an actor runs its calls in order
                events += self._answered(worker)
        now = time.monotonic()
        for worker in self.workers:
            if worker.calls and now > worker.deadline:  # the relay itself is stuck: a frozen node
                events += self._lost_host(worker, f"no answer from its node {worker.node or '?'} in time")
        return events

    def close(self) -> None:
        """Stop every worker and its actor; shut Ray down if this pool started it."""
        try:  # idle workers stop politely; a busy one goes down with its actor, as the local pool kills it
            stops = [w.actor.stop.remote() for w in getattr(self, "workers", []) if w.ready and not w.queue]
            if stops:
                self.ray.wait(stops, num_returns=len(stops), timeout=STOP_WAIT_S)
            for worker in getattr(self, "workers", []):
                if worker.actor is not None:
                    self.ray.kill(worker.actor, no_restart=True)
                    worker.actor, worker.up, worker.calls = None, None, []
        finally:
            if self.started:
                self.ray.shutdown()
                self.started = False

    # --- inside -----------------------------------------------------------------------------------

    def _start(self, worker: RayWorker) -> None:
        worker.actor = self.host.remote(worker.slot, *self.args)
        worker.up = worker.actor.info.remote()
        worker.calls, worker.deadline, worker.tasks_served = [], float("inf"), 0
        worker.starts += 1

    def _send(self, worker: RayWorker, task: Task) -> None:
        worker.queue.append(task)
        self._submit(worker)

    def _submit(self, worker: RayWorker) -> None:
        """Send the queued tasks that are not yet sent, once the actor is up."""
        if not worker.ready:
            return
        for task in worker.queue[len(worker.calls) :]:
            worker.calls.append(worker.actor.run.remote(task))
        if worker.deadline == float("inf"):  # a task queued behind the first leaves its deadline alone
            self._arm(worker)

    def _arm(self, worker: RayWorker) -> None:
        # the worker's own deadline is kept on its node; this one only catches a node that froze
        head = worker.queue[0] if worker.calls else None
        worker.deadline = time.monotonic() + head.timeout + self.first_case_grace + STARTUP_TIMEOUT_S if head else float("inf")

    def _started(self, worker: RayWorker) -> list[Event]:
        try:
            info = self.ray.get(worker.up)
        except self.ray.exceptions.RayError as exc:
            return self._failed_start(worker, exc)
        worker.up, worker.node, worker.pid = None, info["node"], info["pid"]
        self._submit(worker)  # tasks that waited for this replacement
        return []

    def _failed_start(self, worker: RayWorker, exc: Exception) -> list[Event]:
        self.failed_starts += 1
        if self.failed_starts >= MAX_FAILED_STARTS:
            self.close()
            raise WorkerStartError(f"Ray workers cannot start: {_one_line(exc)}")
        self._restart(worker)
        return [Event("restarted", worker.slot, reply={"why": "failed start", "served": 0, "rss": None})]

    def _answered(self, worker: RayWorker) -> list[Event]:
        """The first call came back: relay its events, or the news that its host is gone."""
        try:
            relayed = self.ray.get(worker.calls[0])
        except self.ray.exceptions.RayTaskError as exc:  # the host raised: its worker cannot start
            cause = getattr(exc, "cause", None)
            self.close()
            raise WorkerStartError(str(cause) if isinstance(cause, WorkerStartError) else f"Ray worker host failed: {_one_line(exc)}") from None
        except self.ray.exceptions.RayError as exc:  # the actor died or is unreachable: its node is lost
            return self._lost_host(worker, _one_line(exc))
        self.failed_starts = 0
        task = worker.queue.pop(0)
        worker.calls.pop(0)
        self.losses.pop(id(task), None)
        self._arm(worker)
        for event in relayed:
            event.slot = worker.slot
            if event.lost is not None:
                event.lost.slot = worker.slot
            if event.kind == "restarted":
                worker.tasks_served = 0
            elif event.kind == "reply":
                worker.tasks_served += 1
        return relayed

    def _lost_host(self, worker: RayWorker, detail: str) -> list[Event]:
        """The actor is gone with its tasks: they run again on a replacement, unless the first keeps killing hosts."""
        queue, served = worker.queue, worker.tasks_served
        self._restart(worker)
        events = [Event("restarted", worker.slot, reply={"why": "host lost", "served": served, "rss": None})]
        if queue:
            head = queue[0]  # the one that was running
            self.losses[id(head)] = losses = self.losses.get(id(head), 0) + 1
            if losses >= MAX_HOST_LOSSES:
                why = f"{losses} Ray worker hosts were lost while running it; the last: {detail}"
                events.append(Event("lost", worker.slot, lost=Lost(queue.pop(0), Verdict.CRASH_RUN, why, "", worker.slot)))
                self.losses.pop(id(head), None)
        worker.queue = queue  # sent as soon as the replacement is up, or taken by a free worker
        return events

    def _restart(self, worker: RayWorker) -> None:
        if worker.actor is not None:
            try:
                self.ray.kill(worker.actor, no_restart=True)
            except Exception:  # already gone with its node
                pass
        worker.actor, worker.up, worker.queue = None, None, []
        self._start(worker)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
