"""Inside a Ray actor: one ordinary numfuzz worker process on the actor's node, and the relay to it.

The actor never runs compiled code itself: its worker is a `Pool` of one, so a segfault, abort,
hang or OOM there is caught exactly as on one machine. The driver (`ray_pool.RayPool`) hands it
tasks with each `poll` call; they wait here in order and start the moment the worker is free.
Replies to short tasks are held while enough tasks still wait here, so that one call answers for
several: each call costs CPU that the workers of a small machine share.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from numfuzz.workers.defaults import default_memory_limit
from numfuzz.workers.pool import Entry, Event, Pool, Task
from numfuzz.workers.settings import WorkerSettings


class WorkerHost:
    """Inside a Ray actor: one ordinary numfuzz worker process on this node, and the relay to it."""

    def __init__(self, slot: int, settings: WorkerSettings, log_dir: str, memory_limit: int | None, first_case_grace: float, workers: int, entry: Entry):
        resource = "GPU" if settings.device.startswith("cuda") else "CPU"
        here = min(_node_resource(resource), workers)  # workers that can share this node
        if memory_limit is None:  # an even share of this node's memory, as the local pool takes of its machine's
            memory_limit = default_memory_limit(here)
        memory_limit = memory_limit or None  # 0: no limit
        settings = settings.with_changes(
            memory_limit=memory_limit,
            recycle_bytes=int(0.75 * memory_limit) if memory_limit else None,  # as CampaignConfig.worker_settings
            thread_count=1 if resource == "CPU" else max(1, _node_resource("CPU") // max(here, 1)),
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
        self.pending: list[Task] = []  # sent, not yet started: in order, once the worker is free
        self.cancel_grace: float | None = None

    def info(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": _node_id()}

    def send(self, tasks: list[Task]) -> None:
        """Take tasks; each starts as soon as the worker is free (at once, unless it runs or restarts)."""
        self.pending += tasks
        self._start_pending()

    def cancel(self, grace: float) -> None:
        """Ask the running task for its result so far (a minimisation's smallest case); killed after `grace` s."""
        worker = self.pool.workers[0]
        if worker.task is not None:
            self.pool.cancel(worker, grace)
        elif self.pending:
            self.cancel_grace = grace  # not started yet (the worker restarts): cancelled as it starts

    def poll(self, timeout: float, tasks: list[Task], low: int = 0) -> list[Event]:
        """Take `tasks` (as `send`); return what happened within `timeout` s: replies, progress, lost tasks, restarts.

        Replies wait for company while more than `low` tasks wait here; anything else returns at once.
        """
        self.pending += tasks
        self._start_pending()
        deadline = time.monotonic() + timeout
        events: list[Event] = []
        while True:
            events += self.pool.poll(max(deadline - time.monotonic(), 0.0))
            self._start_pending()
            if time.monotonic() >= deadline or any(e.kind != "reply" for e in events) or (events and len(self.pending) <= low):
                return events

    def _start_pending(self) -> None:
        if self.pending and self.pool.idle():
            worker = self.pool.workers[0]
            self.pool.dispatch(worker, self.pending.pop(0))
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
