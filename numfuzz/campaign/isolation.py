"""Run given cases in a throwaway worker process, so that a target that kills its process is a verdict.

A segfault, an abort, a hang or an exhausted memory can only be seen from outside the process
that ran the case. `numfuzz replay` and the minimiser use this for such findings: the worker
stays warm across cases that do not crash, and a crash costs a cold start of a fresh one.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Sequence

import torch

from numfuzz.campaign.defaults import DEFAULT_CASE_TIMEOUT_S, FIRST_CASE_GRACE_S
from numfuzz.campaign.pool import Entry, Pool, Task
from numfuzz.corpus.case import Case
from numfuzz.judge.execute import Outcome
from numfuzz.program.ir import Graph

POLL_S = 0.2


class IsolationError(RuntimeError):
    """numfuzz itself failed inside the isolated worker; the message is the error's last line."""


class IsolatedRunner:
    """One warm worker for `target`; `evaluate` has the signature of the in-process path.

    `entry` is the worker process's main, `numfuzz.campaign.worker.serve`; it is passed in because
    that worker itself runs isolated workers when it minimises a crash.

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
    ):
        self.target = target
        self.case_timeout = case_timeout
        self.cases = 0
        self.crashes = 0  # cases that took their worker down
        self._scratch = tempfile.TemporaryDirectory(prefix="numfuzz-isolated-") if log_dir is None else None
        settings: dict[str, Any] = {
            "targets": [target],
            "imports": list(imports),
            "device": device,
            "memory_limit_bytes": memory_limit,
            "threads": torch.get_num_threads(),
        }
        folder = Path(self._scratch.name) if self._scratch is not None else Path(log_dir)
        self.pool = Pool(1, settings, folder, memory_limit, FIRST_CASE_GRACE_S, log_name=log_name, entry=entry)

    def evaluate(self, graph: Graph, samples: list[list[torch.Tensor]]) -> Outcome:
        """Run `graph` on these samples in the worker; the outcome, or the verdict of its death."""
        case = Case.from_tensors(graph, samples, self.target)
        task: Task | None = Task("evaluate", self.cases, 0, self.target, self.case_timeout, case.to_json())
        self.cases += 1
        while True:
            idle = self.pool.idle()
            if task is not None and idle:
                self.pool.dispatch(idle[0], task)
                task = None
            for event in self.pool.poll(POLL_S):
                if event.kind == "lost" and event.lost is not None:
                    self.crashes += 1
                    return Outcome(event.lost.verdict, event.lost.detail)
                if event.kind == "reply":
                    reply = event.reply
                    if reply.get("kind") == "error":
                        raise IsolationError(reply.get("error", "unknown error").strip().splitlines()[-1])
                    return Outcome.from_json(reply["outcome"])

    def close(self) -> None:
        self.pool.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def __enter__(self) -> IsolatedRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
