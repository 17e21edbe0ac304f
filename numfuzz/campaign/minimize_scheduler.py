"""A campaign's minimisations: which findings wait, when each starts, how far it got, when it must stop.

While cases run, one finding is minimised at a time. New findings come first: a finding that a
known issue or the target's own refusal explains (`Decision.explained`) is recorded and grouped at
once, and minimised only when no new finding waits and no case is left to run: in a `--time`
campaign, that is never. After the last case of a `--graphs` campaign (the tail), the idle workers
minimise the waiting findings in parallel, new ones first, for at most `--minimize-tail` seconds. A minimisation that must stop (the tail is spent, `--time` is up,
Ctrl-C or SIGTERM) is asked for its smallest case so far: that case is saved in `minimized/` and
the journal keeps the finding queued, so the next run goes on from it.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from loguru import logger

from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.dedupe import Dedupe
from numfuzz.campaign.defaults import CANCEL_GRACE_S
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.minimize_board import MinimizeBoard
from numfuzz.campaign.recorder import Finding
from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.store import load_case
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.candidate_clock import CandidateClock
from numfuzz.workers.messages import Minimized, Progress
from numfuzz.workers.pool import Event, Lost, Task

POLL_S = 0.5

Save = Callable[[Case, str], Path | None]  # a case into a corpus folder (ResultRecorder.save)


class MinimizeScheduler:
    """The waiting findings, the running minimisations (and their board), the tail's deadline.

    `save` stores a case in a corpus folder. The journal's `minimize_queue` is the persistent
    list of waiting findings; `queue` holds their tasks for this run.
    """

    def __init__(self, config: CampaignConfig, journal: Journal, dedupe: Dedupe, save: Save):
        self.config = config
        self.journal = journal
        self.stats = journal.stats
        self.dedupe = dedupe
        self.save = save
        self.queue: deque[Task] = deque()  # new findings
        self.later: deque[Task] = deque()  # findings a known issue or a refusal explains: after every new one, in the tail
        self.running = 0  # minimisations handed out and not yet answered
        self.board = MinimizeBoard()
        self.cancelled: set[str] = set()  # findings whose minimisation was asked to stop
        self.tail_deadline: float | None = None  # set when the last case is done
        self.clocks: dict[str, CandidateClock] = {}  # per target: how long its finished cases took
        self.minimized: list[Path] = []  # saved in this run

    # --- what waits -------------------------------------------------------------------------------

    def consider(self, finding: Finding) -> None:
        """A finding just saved: queued for the minimiser unless it is a duplicate, known or minor."""
        if not self.config.minimize or not Verdict(finding.outcome["verdict"]).is_finding:
            return
        decision = self.dedupe.decide(finding.case, finding.outcome, finding.path.stem)
        if decision is None:
            return
        entry = {"finding": finding.path.stem, "key": decision.key, "target": finding.case.target, "index": finding.index}
        if decision.explained:
            entry["explained"] = True
        self.journal.minimize_queue.append(entry)
        self._enqueue(entry, finding.case)

    def requeue(self) -> None:
        """Findings that were waiting for the minimiser when the last run stopped (from their smallest case so far)."""
        if self.config.corpus is None:
            return
        for entry in list(self.journal.minimize_queue):
            try:
                partial = self.config.corpus / "minimized" / f"{entry.get('partial')}.json"
                start = partial if entry.get("partial") and partial.exists() else self.config.corpus / "findings" / f"{entry['finding']}.json"
                self._enqueue(entry, load_case(start))
            except (CaseError, TypeError):
                logger.warning("finding {} is gone; not minimising it", entry["finding"])
                self.journal.minimize_queue.remove(entry)

    def _enqueue(self, entry: dict[str, Any], case: Case) -> None:
        timeout = self.config.minimize_timeout
        task = Task("minimize", entry["index"], entry["target"], timeout, case.to_json(), entry["finding"], entry["key"])
        (self.later if entry.get("explained") else self.queue).append(task)

    @property
    def waiting(self) -> int:
        return len(self.queue) + len(self.later)

    def observe(self, target: str, wall: float, fresh: bool) -> None:
        """A case of `target` ran alone in `wall` s: candidates of its findings get limits from such times."""
        self.clocks.setdefault(target, CandidateClock(self.config.case_timeout)).observe(wall, fresh)

    # --- starting ---------------------------------------------------------------------------------

    @property
    def tail_over(self) -> bool:
        return self.tail_deadline is not None and time.monotonic() >= self.tail_deadline

    def next_task(self, cases_left: bool) -> Task | None:
        """A minimisation to start now, if any: a new finding's, one at a time while `cases_left`, else one per idle
        worker; an explained finding's only once no case is left and no new finding waits."""
        if self.tail_over:
            return None
        if self.queue and (self.running == 0 or not cases_left):
            return self._start(self.queue.popleft())
        if self.later and not cases_left:
            return self._start(self.later.popleft())
        return None

    def _start(self, task: Task) -> Task:
        """`task.timeout` is its budget: past it the campaign asks for the smallest case so far, and
        kills the worker only if no answer comes within CANCEL_GRACE_S more."""
        self.running += 1
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

    def start_tail(self) -> bool:
        """The last case is done: the tail's clock starts. True when there is anything to minimise in it."""
        self.tail_deadline = time.monotonic() + self.config.minimize_tail
        for finding in self.board.running:
            self.board.shorten(finding, self.tail_deadline)
        if not (self.running or self.waiting):
            return False
        logger.info(
            "all cases done; minimising {} findings ({} running) for at most {:.0f} s (--minimize-tail)",
            self.running + self.waiting,
            self.running,
            self.config.minimize_tail,
        )
        return True

    def progress(self, msg: Progress) -> None:
        self.stats.minimize_candidates += self.board.update(msg)
        logger.info(self.board.line(msg.finding))

    # --- ending -----------------------------------------------------------------------------------

    def finished(self, task: Task, reply: Minimized) -> None:
        """A minimisation's reply: its smallest case saved, or the failure noted; kept for the next run if it was stopped."""
        self.running -= 1
        self.board.finish(task.finding)
        if reply.candidate_s:
            spent = reply.candidate_s
            logger.info("minimising {}: {} isolated runs, {:.1f} s each on average", task.finding, len(spent), sum(spent) / len(spent))
        if reply.cancelled and (reply.exhausted or not reply.case):
            return self._keep_for_next_run(task, reply)
        entry = self._queued(task.finding) or {}
        self.journal.minimize_queue = [e for e in self.journal.minimize_queue if e["finding"] != task.finding]
        if reply.case:
            case = Case.from_json(reply.case)
            self.dedupe.minimized(case)  # its root cause is known now: later findings of it are duplicates
            path = self.save(case, "minimized")
            self.stats.minimized += 1
            if path is not None:
                self.minimized.append(path)
                self._drop_superseded(entry.get("partial"), path)
            logger.info("minimised {}: {} -> {}", task.finding, reply.summary, path)
        else:
            self.stats.minimize_failed += 1
            self.dedupe.failed(task.finding, reply.summary or "no case came back")
            logger.warning("minimising {} gave nothing: {}", task.finding, reply.summary)
            if reply.error:
                logger.debug("minimiser traceback:\n{}", reply.error)

    def lost(self, lost: Lost) -> None:
        """The worker died or was killed while minimising: no case came back."""
        task = lost.task
        stopped = task.finding in self.cancelled  # killed after it was asked to stop: not a failure
        (logger.info if stopped else logger.warning)("minimising {} ended: {} ({})", task.finding, lost.verdict.value, lost.detail)
        self.finished(task, Minimized(task.finding, task.key, summary=f"{lost.verdict.value}: {lost.detail}", cancelled=stopped))

    def _keep_for_next_run(self, task: Task, reply: Minimized) -> None:
        """A minimisation stopped early: its smallest case so far is saved, and the next run goes on from it."""
        path = None
        smaller = reply.case and Case.from_json(reply.case).content_hash()[:16] != task.finding
        if smaller:  # else it is the finding itself, which the next run starts from anyway
            path = self.save(Case.from_json(reply.case), "minimized")
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

    # --- stopping ---------------------------------------------------------------------------------

    def cancel(self, pool: Any, why: str, due_only: bool = False) -> None:
        """Ask running minimisations (all, or those past their budget) on `pool` for their smallest case so far."""
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

    def wind_down(self, pool: Any, handle: Callable[[Event], None]) -> None:
        """Interrupted: running minimisations hand back their smallest case so far (each event goes to
        `handle`); a second Ctrl-C quits at once."""
        if not self.running:
            return
        logger.warning("stopping: waiting up to {:.0f} s for the smallest cases so far (Ctrl-C again to quit now)", CANCEL_GRACE_S)
        self.cancel(pool, "interrupted")
        deadline = time.monotonic() + CANCEL_GRACE_S + 5
        try:
            while self.running and time.monotonic() < deadline:
                for event in pool.poll(POLL_S):
                    handle(event)
        except KeyboardInterrupt:
            pass

    def header(self) -> dict[str, Any]:
        """Its lines in the fuzzer_stats file."""
        header: dict[str, Any] = {"minimizing": self.running, "minimize_waiting": self.waiting}
        if self.tail_deadline is not None:
            header["minimize_tail_left"] = round(max(self.tail_deadline - time.monotonic(), 0.0), 1)
        return header
