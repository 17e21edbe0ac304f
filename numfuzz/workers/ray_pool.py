"""The worker pool on a Ray cluster: the same events as `pool.Pool`, with each worker hosted by a Ray actor.

Each actor is a thin host: it starts one ordinary worker process on its node (a `Pool` of one)
and relays to it, so a segfault, abort, hang or OOM is caught exactly as on one machine and comes
back as a lost task with that verdict. The actor itself never runs compiled code. The driver keeps
one `poll` call waiting on each actor, which returns when something happens there (replies, a
minimisation's progress, a restart) and carries the tasks the driver gave the actor since the
last one. Behind a short task the driver queues more on the actor, which starts each the moment
the one before replies: without that, each case would wait a round trip to the driver and back,
a tenth of a fast target's case time on a busy machine. Where tasks are very short, an actor
holds more of them and answers for two at a time (`ray_host`). An actor that dies (its node is
lost, it is killed) costs only its tasks, which run again on a replacement actor or a free one;
only a task that takes down MAX_HOST_LOSSES hosts in a row is recorded, as a crash.

Ray is optional: it is imported here only, when a pool is made.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import statistics
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from loguru import logger

import numfuzz
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.pool import MAX_FAILED_STARTS, Entry, Event, Lost, Restarted, Task, WorkerStartError
from numfuzz.workers.ray_host import WorkerHost
from numfuzz.workers.settings import WorkerSettings

LOCAL = "local"  # --ray local: start a Ray instance on this machine, bound to the loopback interface
MAX_HOST_LOSSES = 3  # hosts lost in a row while holding one task: it is the task, not the cluster
NODE_SILENCE_S = 120.0  # a poll returns within RELAY_POLL_S; this long without one, the node is gone
RELAY_POLL_S = 0.5
STOP_WAIT_S = 10.0
CONNECT_TIMEOUT_S = 10.0
OBJECT_STORE_BYTES = 128 * 2**20  # tasks and replies are small JSON; Ray's default takes 30% of RAM
LOCAL_SYSTEM_CONFIG = {
    "worker_niceness": 0,  # Ray's default, 15, yields the workers' CPU to anything else here
    # Ray's own metrics and task events feed its dashboard, which --ray local does not start; off, each Ray call costs ~10% less CPU
    "enable_metrics_collection": False,
    "task_events_report_interval_ms": 0,
}
QUEUED_BEHIND = ("case", "batch", "evaluate")  # short tasks, which others may wait behind on the actor; never a minimisation
SHORT_TASK_S = 0.3  # below this median time a task costs too little next to a Ray call each: the actor holds more
DEEP_QUEUE = (4, 1)  # tasks an actor holds, and how few left waiting there make it answer
SHALLOW_QUEUE = (2, 0)


class RayWorker:
    """The driver's view of one worker slot: its actor, the tasks it holds, the poll call waiting on it."""

    def __init__(self, slot: int):
        self.slot = slot
        self.actor: Any = None
        self.up: Any = None  # the actor's info() call: done once the actor is constructed
        self.node = ""
        self.pid = 0
        self.tasks: list[Task] = []  # the running one, then those queued behind it
        self.sent = 0  # how many of them went to this actor (none, while a replacement starts)
        self.listening: Any = None  # the poll() call waiting on the actor
        self.heard = float("inf")  # when that call was made
        self.tasks_served = 0  # since its worker process started
        self.starts = 0

    @property
    def task(self) -> Task | None:
        """The task running (or about to run) here; what the campaign cancels and waits for."""
        return self.tasks[0] if self.tasks else None

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
        init_ray(ray, address, runtime_env)
    finally:
        for sig, handler in handlers.items():
            if handler is not None and threading.current_thread() is threading.main_thread():
                signal.signal(sig, handler)
    return True


def init_ray(ray: Any, address: str, runtime_env: dict[str, Any]) -> None:
    """Join the Ray cluster at `address` (`local`: start one on the loopback interface only), quietly; also the model sweep's."""
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
            _system_config=LOCAL_SYSTEM_CONFIG,
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
        settings: WorkerSettings,
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
        gpu = settings.device.startswith("cuda")
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
        self.walls: deque[float] = deque(maxlen=32)  # the latest short tasks' times
        self.queue = SHALLOW_QUEUE  # how many tasks an actor holds, and how few left waiting there make it answer
        self.workers = [RayWorker(slot) for slot in range(count)]
        for worker in self.workers:
            self._start(worker)

    # --- the Pool interface -----------------------------------------------------------------------

    def idle(self) -> list[RayWorker]:
        """Workers free for a task: first those with none, then those running a short one, to queue it behind."""
        free = [w for w in self.workers if w.ready and not w.tasks]
        # Tasks whose host was lost wait for the replacement, unless a worker is free now (the
        # replacement may wait long for room on a cluster that lost a node).
        for stuck in [w for w in self.workers if w.tasks and not w.ready]:
            if free:
                taker = free.pop(0)
                taker.tasks, stuck.tasks = stuck.tasks, []
        depth = self.queue[0]
        room = {w: depth - len(w.tasks) for w in self.workers if w.ready and w.tasks and all(t.kind in QUEUED_BEHIND for t in w.tasks)}
        return free + [w for level in range(depth) for w, left in room.items() if left > level]  # round robin

    def dispatch(self, worker: RayWorker, task: Task) -> None:
        """The task goes to the actor with the next poll call (at once, unless one is waiting there)."""
        self.losses.pop(id(task), None)
        worker.tasks.append(task)

    def cancel(self, worker: RayWorker, grace: float) -> None:
        """As `Pool.cancel`: the running task is asked to stop early and reply, and killed after `grace` s."""
        if worker.tasks and worker.ready:
            self._send(worker)  # the actor runs its calls in order: the task is there before the cancellation
            worker.actor.cancel.remote(grace)

    def poll(self, timeout: float) -> list[Event]:
        """Wait up to `timeout` s; return replies, progress, lost tasks and restarts. May raise WorkerStartError."""
        for worker in self.workers:  # after this round's dispatches, so that a task goes before the wait
            if worker.ready and worker.listening is None:
                unsent, worker.sent = worker.tasks[worker.sent :], len(worker.tasks)
                worker.listening, worker.heard = worker.actor.poll.remote(RELAY_POLL_S, unsent, self.queue[1]), time.monotonic()
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
            stops = [w.actor.stop.remote() for w in getattr(self, "workers", []) if w.ready and not w.tasks]
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
        worker.listening, worker.sent, worker.tasks_served = None, 0, 0
        worker.starts += 1

    def _timed(self, wall: float) -> None:
        """A short task took `wall` s: actors hold more tasks while such tasks stay very short."""
        self.walls.append(wall)
        short = len(self.walls) >= self.walls.maxlen // 4 and statistics.median(self.walls) < SHORT_TASK_S
        queue = DEEP_QUEUE if short else SHALLOW_QUEUE
        if queue != self.queue:
            logger.debug("tasks take {:.2f} s (median): each Ray actor now holds up to {}", statistics.median(self.walls), queue[0])
            self.queue = queue

    def _send(self, worker: RayWorker) -> None:
        """Send the actor the tasks it has not had yet, without waiting for the next poll call."""
        if worker.ready and worker.sent < len(worker.tasks):
            worker.actor.send.remote(worker.tasks[worker.sent :])
            worker.sent = len(worker.tasks)

    def _started(self, worker: RayWorker) -> list[Event]:
        try:
            info = self.ray.get(worker.up)
        except self.ray.exceptions.RayError as exc:
            return self._failed_start(worker, exc)
        worker.up, worker.node, worker.pid = None, info["node"], info["pid"]
        return []  # tasks that waited for this replacement go with its first poll call

    def _failed_start(self, worker: RayWorker, exc: Exception) -> list[Event]:
        self.failed_starts += 1
        if self.failed_starts >= MAX_FAILED_STARTS:
            self.close()
            raise WorkerStartError(f"Ray workers cannot start: {_one_line(exc)}")
        tasks = worker.tasks
        self._restart(worker)
        worker.tasks = tasks
        return [Event("restarted", worker.slot, reply=Restarted("failed start", 0, None))]

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
        for event in relayed:  # the actor runs its tasks in order: the events are about the first one held
            held = worker.task  # the driver's own object for it
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
                if worker.tasks:
                    worker.tasks.pop(0)
                    worker.sent = max(worker.sent - 1, 0)
                wall = getattr(event.reply, "wall", None)  # case replies only, as batches and evaluations say none
                if held is not None and held.kind in QUEUED_BEHIND and isinstance(wall, (int, float)):
                    self._timed(float(wall))
                worker.tasks_served += event.kind == "reply"
        return relayed

    def _lost_host(self, worker: RayWorker, detail: str) -> list[Event]:
        """The actor is gone with its tasks: they run again on a replacement, unless the running one keeps killing hosts."""
        tasks, served = worker.tasks, worker.tasks_served
        self._restart(worker)
        events = [Event("restarted", worker.slot, reply=Restarted("host lost", served, None))]
        if tasks:
            task = tasks[0]
            self.losses[id(task)] = losses = self.losses.get(id(task), 0) + 1
            if losses >= MAX_HOST_LOSSES:
                why = f"{losses} Ray worker hosts were lost while running it; the last: {detail}"
                events.append(Event("lost", worker.slot, lost=Lost(task, Verdict.CRASH_RUN, why, "", worker.slot)))
                self.losses.pop(id(task), None)
                tasks = tasks[1:]
            worker.tasks = tasks  # sent as soon as the replacement is up, or taken by a free worker
        return events

    def _restart(self, worker: RayWorker) -> None:
        if worker.actor is not None:
            try:
                self.ray.kill(worker.actor, no_restart=True)
            except Exception:  # already gone with its node
                pass
        worker.actor = worker.up = worker.listening = None
        worker.tasks = []
        self._start(worker)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
