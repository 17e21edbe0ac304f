"""The worker pool on a Ray cluster: the same events as `pool.Pool`, with each worker hosted by a Ray actor.

Each actor is a thin host: it starts one ordinary worker process on its node (a `Pool` of one)
and relays to it, so a segfault, abort, hang or OOM is caught exactly as on one machine and comes
back as a lost task with that verdict. The actor itself never runs compiled code. The driver keeps
one `poll` call waiting on each actor, which returns as soon as anything happens there (a reply,
a minimisation's progress, a restart); tasks and cancellations are calls of their own. An actor
that dies (its node is lost, it is killed) costs only its task, which runs again on a replacement
actor or a free one; only a task that takes down MAX_HOST_LOSSES hosts in a row is recorded, as a
crash.

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
from numfuzz.campaign.pool import MAX_FAILED_STARTS, Entry, Event, Lost, Pool, Task, WorkerStartError
from numfuzz.judge.verdicts import Verdict

LOCAL = "local"  # --ray local: start a Ray instance on this machine, bound to the loopback interface
MAX_HOST_LOSSES = 3  # hosts lost in a row while holding one task: it is the task, not the cluster
NODE_SILENCE_S = 120.0  # a poll returns within RELAY_POLL_S; this long without one, the node is gone
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
        self.pending: Task | None = None
        self.cancel_grace: float | None = None

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": _node_id()}

    def send(self, task: Task) -> None:
        """Take a task; it starts as soon as the worker is ready (at once, unless it is restarting)."""
        self.pending = task
        self._start_pending()

    def cancel(self, grace: float) -> None:
        """Ask the task for its result so far (a minimisation's smallest case); killed after `grace` s."""
        if self.pending is not None:
            self.cancel_grace = grace  # not started yet: cancelled as it starts
        else:
            self.pool.cancel(self.pool.workers[0], grace)

    def poll(self, timeout: float) -> list[Event]:
        """What happened within `timeout` s: replies, progress, lost tasks, restarts."""
        self._start_pending()
        events = self.pool.poll(timeout)
        self._start_pending()
        return events

    def _start_pending(self) -> None:
        if self.pending is not None and self.pool.idle():
            worker = self.pool.workers[0]
            self.pool.dispatch(worker, self.pending)
            self.pending = None
            if self.cancel_grace is not None:
                self.pool.cancel(worker, self.cancel_grace)
                self.cancel_grace = None

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
    """The driver's view of one worker slot: its actor, the task it holds, the poll call waiting on it."""

    def __init__(self, slot: int):
        self.slot = slot
        self.actor: Any = None
        self.up: Any = None  # the actor's info() call: done once the actor is constructed
        self.node = ""
        self.pid = 0
        self.task: Task | None = None
        self.sent = False  # the task went to this actor (not yet, while a replacement starts)
        self.listening: Any = None  # the poll() call waiting on the actor
        self.heard = float("inf")  # when that call was made
        self.tasks_served = 0  # since its worker process started
        self.starts = 0

    @property
    def ready(self) -> bool:
        return self.up is None and self.actor is not None


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
        free = [w for w in self.workers if w.ready and w.task is None]
        # A task whose host was lost waits for the replacement, unless a worker is free now (the
        # replacement may wait long for room on a cluster that lost a node).
        for stuck in [w for w in self.workers if w.task is not None and not w.ready]:
            if free:
                taker = free.pop(0)
                taker.task, stuck.task = stuck.task, None
                self._send(taker)
        return free

    def dispatch(self, worker: RayWorker, task: Task) -> None:
        self.losses.pop(id(task), None)
        worker.task = task
        self._send(worker)

    def cancel(self, worker: RayWorker, grace: float) -> None:
        """As `Pool.cancel`: the task is asked to stop early and reply, and killed after `grace` s."""
        if worker.task is not None and worker.sent and worker.actor is not None:
            worker.actor.cancel.remote(grace)

    def poll(self, timeout: float) -> list[Event]:
        """Wait up to `timeout` s; return replies, progress, lost tasks and restarts. May raise WorkerStartError."""
        for worker in self.workers:  # after this round's dispatches, so that a task goes before the wait
            if worker.ready and worker.listening is None:
                worker.listening, worker.heard = worker.actor.poll.remote(RELAY_POLL_S), time.monotonic()
        calls = {w.up: w for w in self.workers if w.up is not None}
        calls.update({w.listening: w for w in self.workers if w.listening is not None})
        events: list[Event] = []
        if not calls:
            time.sleep(timeout)
            return events
        done, _ = self.ray.wait(list(calls), num_returns=1, timeout=timeout)
        if done:  # and whatever else is done by now
            done, _ = self.ray.wait(list(calls), num_returns=len(calls), timeout=0)
        for ref in done:
            worker = calls[ref]
            events += self._started(worker) if ref == worker.up else self._heard(worker)
        now = time.monotonic()
        for worker in self.workers:
            if worker.listening is not None and now - worker.heard > NODE_SILENCE_S:  # a frozen or cut-off node
                events += self._lost_host(worker, f"no word from its node {worker.node or '?'} in {NODE_SILENCE_S:.0f} s")
        return events

    def close(self) -> None:
        """Stop every worker and its actor; shut Ray down if this pool started it."""
        try:  # idle workers stop politely; a busy one goes down with its actor, as the local pool kills it
            stops = [w.actor.stop.remote() for w in getattr(self, "workers", []) if w.ready and w.task is None]
            if stops:
                self.ray.wait(stops, num_returns=len(stops), timeout=STOP_WAIT_S)
            for worker in getattr(self, "workers", []):
                if worker.actor is not None:
                    self.ray.kill(worker.actor, no_restart=True)
                    worker.actor = worker.up = worker.listening = None
        finally:
            if self.started:
                self.ray.shutdown()
                self.started = False

    # --- inside -----------------------------------------------------------------------------------

    def _start(self, worker: RayWorker) -> None:
        worker.actor = self.host.remote(worker.slot, *self.args)
        worker.up = worker.actor.info.remote()
        worker.listening, worker.sent, worker.tasks_served = None, False, 0
        worker.starts += 1

    def _send(self, worker: RayWorker) -> None:
        if worker.task is not None and worker.ready and not worker.sent:
            worker.actor.send.remote(worker.task)
            worker.sent = True

    def _started(self, worker: RayWorker) -> list[Event]:
        try:
            info = self.ray.get(worker.up)
        except self.ray.exceptions.RayError as exc:
            return self._failed_start(worker, exc)
        worker.up, worker.node, worker.pid = None, info["node"], info["pid"]
        self._send(worker)  # a task that waited for this replacement
        return []

    def _failed_start(self, worker: RayWorker, exc: Exception) -> list[Event]:
        self.failed_starts += 1
        if self.failed_starts >= MAX_FAILED_STARTS:
            self.close()
            raise WorkerStartError(f"Ray workers cannot start: {_one_line(exc)}")
        task = worker.task
        self._restart(worker)
        worker.task = task
        return [Event("restarted", worker.slot, reply={"why": "failed start", "served": 0, "rss": None})]

    def _heard(self, worker: RayWorker) -> list[Event]:
        """The poll call came back: relay its events, or the news that the host is gone."""
        try:
            relayed = self.ray.get(worker.listening)
        except self.ray.exceptions.RayTaskError as exc:  # the host raised: its worker cannot start
            cause = getattr(exc, "cause", None)
            self.close()
            raise WorkerStartError(str(cause) if isinstance(cause, WorkerStartError) else f"Ray worker host failed: {_one_line(exc)}") from None
        except self.ray.exceptions.RayError as exc:  # the actor died or is unreachable: its node is lost
            return self._lost_host(worker, _one_line(exc))
        worker.listening = None
        held = worker.task  # the driver's own object for the task the events are about
        for event in relayed:
            event.slot = worker.slot
            if held is not None and event.task is not None:
                event.task = held
            if event.lost is not None:
                event.lost.slot = worker.slot
                event.lost.task = held or event.lost.task
            if event.kind == "restarted":
                worker.tasks_served = 0
            elif event.kind in ("reply", "lost"):
                self.failed_starts = 0
                self.losses.pop(id(held), None)
                worker.task, worker.sent = None, False
                worker.tasks_served += event.kind == "reply"
        return relayed

    def _lost_host(self, worker: RayWorker, detail: str) -> list[Event]:
        """The actor is gone with its task: the task runs again on a replacement, unless it keeps killing hosts."""
        task, served = worker.task, worker.tasks_served
        self._restart(worker)
        events = [Event("restarted", worker.slot, reply={"why": "host lost", "served": served, "rss": None})]
        if task is not None:
            self.losses[id(task)] = losses = self.losses.get(id(task), 0) + 1
            if losses >= MAX_HOST_LOSSES:
                why = f"{losses} Ray worker hosts were lost while running it; the last: {detail}"
                events.append(Event("lost", worker.slot, lost=Lost(task, Verdict.CRASH_RUN, why, "", worker.slot)))
                self.losses.pop(id(task), None)
            else:
                worker.task = task  # sent as soon as the replacement is up, or taken by a free worker
        return events

    def _restart(self, worker: RayWorker) -> None:
        if worker.actor is not None:
            try:
                self.ray.kill(worker.actor, no_restart=True)
            except Exception:  # already gone with its node
                pass
        worker.actor = worker.up = worker.listening = None
        worker.task = None
        self._start(worker)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
