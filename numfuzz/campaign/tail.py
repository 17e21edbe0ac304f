"""A campaign's minimisation tail: starting minimisations, showing their progress, stopping them.

After the last case of a `--graphs` campaign, the idle workers minimise the waiting findings in
parallel for at most `--minimize-tail` seconds. A minimisation that must stop (the tail is spent,
`--time` is up, Ctrl-C or SIGTERM) is asked for its smallest case so far: that case is saved in
`minimized/` and the journal keeps the finding queued, so the next run goes on from it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from loguru import logger

from numfuzz.campaign.defaults import CANCEL_GRACE_S
from numfuzz.corpus.case import Case
from numfuzz.workers.messages import Minimized
from numfuzz.workers.pool import Event, Pool, Task

POLL_S = 0.5


class MinimizeTail:
    """Part of `numfuzz.campaign.loop.Campaign`: the minimisations' side of its loop."""

    def _start_minimize(self, task: Task) -> Task:
        """`task.timeout` is its budget: past it the campaign asks for the smallest case so far, and
        kills the worker only if no answer comes within CANCEL_GRACE_S more."""
        self.minimizing += 1
        now = time.monotonic()
        budget = task.timeout if self.tail_deadline is None else max(min(task.timeout, self.tail_deadline - now), 1.0)
        entry = self._queued(task.finding) or {}
        clock = self.clocks.get(task.target)
        if clock is not None:  # kept with the finding: a resumed run that only minimises has no cases to time
            entry["clock"] = clock.to_json()
        task.budget, task.clock = budget, entry.get("clock") or None
        task.timeout = budget + CANCEL_GRACE_S
        symptom = str(((task.case or {}).get("result") or {}).get("verdict", "?"))
        self.board.start(task.finding, symptom, now + budget)
        logger.info("minimising {} ({}), at most {:.0f} s", task.finding, symptom, budget)
        return task

    def _keep_for_next_run(self, task: Task, reply: Minimized) -> None:
        """A minimisation stopped early: its smallest case so far is saved, and the next run goes on from it."""
        path = None
        smaller = reply.case and Case.from_json(reply.case).content_hash()[:16] != task.finding
        if smaller:  # else it is the finding itself, which the next run starts from anyway
            path = self._save(Case.from_json(reply.case), "minimized")
            entry = self._queued(task.finding)
            if path is not None and entry is not None:
                previous, entry["partial"] = entry.get("partial"), path.stem
                self._drop_superseded(previous, path)
            self.stats.minimize_partial += 1
        logger.info("minimising {} stopped: {}; smallest so far: {}; the next run goes on", task.finding, reply.summary, path or "the finding")

    def _queued(self, finding: str) -> dict[str, Any] | None:
        return next((e for e in self.journal.minimize_queue if e["finding"] == finding), None)

    def _drop_superseded(self, partial: str | None, final: Path) -> None:
        """A smallest-so-far case from an interrupted run, now that a smaller one (from it) is saved."""
        if partial and partial != final.stem and self.config.corpus is not None:
            (self.config.corpus / "minimized" / f"{partial}.json").unlink(missing_ok=True)

    def _on_progress(self, event: Event) -> None:
        self.stats.minimize_candidates += self.board.update(event.reply)
        logger.info(self.board.line(event.reply.finding))
        self.bar.set_postfix_str(self._postfix(), refresh=True)

    def _postfix(self) -> str:
        board = self.board.text()  # first: a narrow terminal cuts the end of the line
        return f"{board} | {self.stats.postfix()}" if board else self.stats.postfix()

    def _cancel_minimizations(self, pool: Pool, why: str, due_only: bool = False) -> None:
        """Ask running minimisations (all, or those past their budget) for their smallest case so far."""
        now = time.monotonic()
        for worker in pool.workers:
            task = worker.task
            if task is None or task.kind != "minimize" or task.finding in self.cancelled:
                continue
            running = self.board.running.get(task.finding)
            if due_only and running is not None and running.deadline > now:
                continue
            self.cancelled.add(task.finding)
            pool.cancel(worker, CANCEL_GRACE_S)
            logger.info("stopping the minimisation of {} ({}); its smallest case so far is kept", task.finding, why)

    def _start_tail(self) -> None:
        self.tail_deadline = time.monotonic() + self.config.minimize_tail
        for finding in self.board.running:
            self.board.shorten(finding, self.tail_deadline)
        if self.minimizing or self.to_minimize:
            self.bar.set_description_str("minimising")
            logger.info(
                "all cases done; minimising {} findings ({} running) for at most {:.0f} s (--minimize-tail)",
                self.minimizing + len(self.to_minimize),
                self.minimizing,
                self.config.minimize_tail,
            )

    def _wind_down(self, pool: Pool) -> None:
        """Interrupted: running minimisations hand back their smallest case so far; a second Ctrl-C quits at once."""
        if not self.minimizing:
            return
        logger.warning("stopping: waiting up to {:.0f} s for the smallest cases so far (Ctrl-C again to quit now)", CANCEL_GRACE_S)
        self._cancel_minimizations(pool, "interrupted")
        deadline = time.monotonic() + CANCEL_GRACE_S + 5
        try:
            while self.minimizing and time.monotonic() < deadline:
                for event in pool.poll(POLL_S):
                    self._on_event(pool, event)
        except KeyboardInterrupt:
            pass
