"""The long loop: hand cases to warm workers, record what comes back, keep state for resume.

The campaign process never runs compiled code itself (that happens in `numfuzz.workers`), so
whatever a target does, the campaign goes on. It saves each finding atomically before it
counts the case as done, and writes its journal, stats file and coverage every few seconds:
a SIGKILL at any moment loses no finding; the cases in flight run again on resume.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from loguru import logger
from tqdm import tqdm

from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.dedupe import Dedupe
from numfuzz.campaign.defaults import available_cores, default_memory_limit
from numfuzz.campaign.feed import CaseFeed
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.minimize_board import MinimizeBoard
from numfuzz.campaign.stats import CampaignStats
from numfuzz.campaign.tail import MinimizeTail
from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.known import load_known
from numfuzz.corpus.store import load_case, save_case, write_atomic
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.candidate_clock import CandidateClock
from numfuzz.workers.messages import CaseResult, ErrorReply, Minimized
from numfuzz.workers.pool import Event, Lost, Pool, Task
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.worker import serve

POLL_S = 0.5


@dataclass
class CampaignSummary:
    stats: CampaignStats
    findings: list[Path] = field(default_factory=list)  # saved in this run
    minimized: list[Path] = field(default_factory=list)
    interrupted: bool = False
    directory: Path | None = None  # the journal's folder: stats, coverage, logs
    graphs_done: int = 0  # this shard, over all runs

    @property
    def graphs(self) -> int:
        return self.stats.run_graphs

    @property
    def verdicts(self) -> dict[str, Counter]:
        return self.stats.verdicts

    def table(self) -> str:
        from numfuzz.program.ops import OPS

        lines = [self.stats.table(sorted(OPS))]
        lines.append(f"{self.graphs_done} graphs done in this shard" + (" (interrupted)" if self.interrupted else ""))
        if self.directory is not None:
            lines.append(f"stats, coverage and logs: {self.directory}")
        return "\n".join(lines)


class Campaign(MinimizeTail, CaseFeed):
    def __init__(self, config: CampaignConfig):
        self.config = config
        self.workers = config.workers  # with Ray, the cluster's size decides once the pool is up
        self.memory_limit = default_memory_limit(config.workers) if config.memory_limit is None else (config.memory_limit or None)
        self.journal = Journal.open(config.corpus, config.identity(), list(config.targets))
        self.stats = self.journal.stats
        self.summary = CampaignSummary(self.stats, directory=self.journal.directory)
        self.findings_dir = config.corpus / "findings" if config.corpus else None
        self.pending: Iterator[tuple[int, str]] = self.journal.pending(config.graphs)
        self.to_minimize: deque[Task] = deque()
        self.exhausted = False  # every case within the graph budget has been handed out
        self.minimizing = 0
        self.dedupe = Dedupe(self.journal.minimize_keys, load_known(config.known_files), config.corpus)
        self.board = MinimizeBoard()
        self.cancelled: set[str] = set()  # findings whose minimisation was asked to stop
        self.tail_deadline: float | None = None  # set when the last case is done
        self.clocks: dict[str, CandidateClock] = {}  # per target: how long its finished cases took
        self._init_feed(config.batch)

    # --- tasks ---------------------------------------------------------------------------------

    def _next_task(self, issue_cases: bool) -> Task | None:
        tail_over = self.tail_deadline is not None and time.monotonic() >= self.tail_deadline
        # one minimisation at a time while there are cases to run; after them, on every idle worker
        if self.to_minimize and issue_cases and not tail_over and (self.minimizing == 0 or self.exhausted):
            return self._start_minimize(self.to_minimize.popleft())
        if not issue_cases or self.batch is None:  # no worker has started yet: see CaseFeed._init_feed
            return None
        task = self._case_task()
        self.exhausted = task is None
        return task

    def _ordinal(self, index: int) -> int:
        return (index - self.config.shard[0]) // self.config.shard[1]

    def _queue_minimize(self, case: Case, path: Path, index: int, outcome: dict[str, Any]) -> None:
        if not self.config.minimize or not Verdict(outcome["verdict"]).is_finding:
            return
        key = self.dedupe.decide(case, outcome, path.stem)
        if key is None:
            return
        entry = {"finding": path.stem, "key": key, "target": case.target, "index": index}
        self.journal.minimize_queue.append(entry)
        self._enqueue_minimize(entry, case)

    def _enqueue_minimize(self, entry: dict[str, Any], case: Case) -> None:
        timeout = self.config.minimize_timeout
        self.to_minimize.append(Task("minimize", entry["index"], 0, entry["target"], timeout, case.to_json(), entry["finding"], entry["key"]))

    def _requeue_minimizations(self) -> None:
        """Findings that were waiting for the minimiser when the last run stopped (from their smallest case so far)."""
        for entry in list(self.journal.minimize_queue):
            try:
                partial = self.config.corpus / "minimized" / f"{entry.get('partial')}.json"
                start = partial if entry.get("partial") and partial.exists() else self.findings_dir / f"{entry['finding']}.json"
                self._enqueue_minimize(entry, load_case(start))
            except (CaseError, TypeError):
                logger.warning("finding {} is gone; not minimising it", entry["finding"])
                self.journal.minimize_queue.remove(entry)

    # --- results -------------------------------------------------------------------------------

    def _save(self, case: Case, folder: str) -> Path | None:
        if self.config.corpus is None:
            return None
        return save_case(case, self.config.corpus / folder)

    def _finish_case(self, task: Task, verdict: Verdict | None, ops: list[str], samples: int, reply: CaseResult | ErrorReply | None) -> None:
        """Count the case and mark it done; `verdict` None: numfuzz itself failed on it; `reply` None: its worker died."""
        cpu, wall = (reply.cpu, float(reply.wall or 0.0)) if reply is not None else (None, 0.0)
        self.stats.record(task.target, verdict, ops, samples, cpu, wall)
        self.stats.batched += isinstance(reply, CaseResult) and reply.batched is not None
        if self.journal.mark_done(self._ordinal(task.index), task.target):
            self.stats.run_graphs += 1
            self.bar.update(1)

    def on_reply(self, event: Event) -> None:
        task, reply = event.task, event.reply
        if task.kind == "minimize":
            return self._on_minimized(task, reply)
        case = Case.from_json(reply.case) if reply.case else None
        if isinstance(reply, ErrorReply):
            path = None
            if case is not None:
                case.extra["error"] = reply.error
                path = self._save(case, "errors")
            logger.error("numfuzz failed on case {} ({}): {}; saved as {}", task.index, task.target, reply.error.strip().splitlines()[-1], path)
            return self._finish_case(task, None, reply.ops, 0, reply)
        outcome = reply.outcome
        verdict = Verdict(outcome["verdict"])
        if verdict.is_finding:
            case.result = outcome
            case.extra["campaign"] = {"index": task.index, "seed": task.seed, **self.journal.identity}
            path = self._save(case, "findings")
            if path is not None:
                self.summary.findings.append(path)
                self._queue_minimize(case, path, task.index, outcome)
            logger.info("finding: {} on {} (case {}): {} -> {}", verdict.value, task.target, task.index, outcome.get("detail", ""), path)
        else:
            logger.debug("case {} on {}: {}", task.index, task.target, verdict.value)
        self._finish_case(task, verdict, reply.ops, reply.samples, reply)

    def on_lost(self, lost: Lost) -> None:
        """A worker died or was killed holding this task. A case becomes a finding of that symptom."""
        task = lost.task
        if task.kind == "minimize":
            stopped = task.finding in self.cancelled  # killed after it was asked to stop: not a failure
            (logger.info if stopped else logger.warning)("minimising {} ended: {} ({})", task.finding, lost.verdict.value, lost.detail)
            return self._on_minimized(task, Minimized(task.finding, task.key, summary=f"{lost.verdict.value}: {lost.detail}", cancelled=stopped))
        from numfuzz.corpus.make import make_case
        from numfuzz.judge.execute import Outcome

        # The seed makes the same case again: the parent rebuilds what the worker was running.
        try:
            case = make_case(task.seed, self.config.run_for(task.target), self.config.gen)
        except Exception as exc:  # the generator's bug; the worker would have reported it had it lived
            logger.error("case {} ({}) was lost ({}) and cannot be rebuilt: {}", task.index, task.target, lost.verdict.value, exc)
            return self._finish_case(task, None, [], 0, None)
        case.result = Outcome(lost.verdict, lost.detail).to_json()
        case.extra["campaign"] = {"index": task.index, "seed": task.seed, **self.journal.identity}
        case.extra["worker_log"] = lost.log_tail[-3000:]
        path = self._save(case, "findings")
        if path is not None:
            self.summary.findings.append(path)
            self._queue_minimize(case, path, task.index, case.result)  # in a worker, through an isolated one
        logger.info("finding: {} on {} (case {}): {} -> {}", lost.verdict.value, task.target, task.index, lost.detail, path)
        self._finish_case(task, lost.verdict, sorted({n.op for n in case.graph.nodes}), 0, None)

    def _on_minimized(self, task: Task, reply: Minimized) -> None:
        self.minimizing -= 1
        self.board.finish(task.finding)
        if reply.candidate_s:
            spent = reply.candidate_s
            logger.info("minimising {}: {} isolated runs, {:.1f} s each on average", task.finding, len(spent), sum(spent) / len(spent))
        if reply.cancelled and (reply.exhausted or not reply.case):
            return self._keep_for_next_run(task, reply)
        entry = next((e for e in self.journal.minimize_queue if e["finding"] == task.finding), {})
        self.journal.minimize_queue = [e for e in self.journal.minimize_queue if e["finding"] != task.finding]
        if reply.case:
            case = Case.from_json(reply.case)
            self.dedupe.minimized(case)  # its root cause is known now: later findings of it are duplicates
            path = self._save(case, "minimized")
            self.stats.minimized += 1
            if path is not None:
                self.summary.minimized.append(path)
                self._drop_superseded(entry.get("partial"), path)
            logger.info("minimised {}: {} -> {}", task.finding, reply.summary, path)
        else:
            self.stats.minimize_failed += 1
            self.dedupe.failed(task.finding, reply.summary or "no case came back")
            logger.warning("minimising {} gave nothing: {}", task.finding, reply.summary)
            if reply.error:
                logger.debug("minimiser traceback:\n{}", reply.error)

    def _on_event(self, pool: Pool, event: Event) -> None:
        if event.kind == "reply":
            worker = pool.workers[event.slot]
            self.stats.record_memory(event.slot, worker.tasks_served, event.reply.rss)
            for one in self._split_batch(event) if event.task.kind == "batch" else [event]:
                if isinstance(one.reply, CaseResult) and one.reply.batched is None:  # how long this target's cases take alone
                    clock = self.clocks.setdefault(one.task.target, CandidateClock(self.config.case_timeout))
                    clock.observe(float(one.reply.wall), fresh=worker.tasks_served == 1)
                self.on_reply(one)
        elif event.kind == "lost" and event.lost.task.kind == "batch":
            self._batch_lost(event.lost)
        elif event.kind == "lost":
            self.on_lost(event.lost)
        elif event.kind == "progress":
            self._on_progress(event)
        elif event.kind == "ready":
            self._targets_known(event.reply.targets)
        else:
            why, rss = event.reply.why, event.reply.rss
            self.stats.restarts[why] += 1
            at = f" at {rss / 2**20:.0f} MiB RSS" if rss else ""
            logger.info("worker {} restarted ({}) after {} tasks{}", event.slot, why, event.reply.served, at)

    # --- the loop ------------------------------------------------------------------------------

    def _worker_settings(self) -> WorkerSettings:
        return self.config.worker_settings(self.memory_limit, max(1, available_cores() // max(self.config.workers, 1)))

    def _make_pool(self, log_dir: Path) -> Any:
        """Worker processes on this machine, or with `ray` set, hosted by actors on a Ray cluster (same events)."""
        config = self.config
        if config.ray is None:
            return Pool(config.workers, self._worker_settings(), log_dir, self.memory_limit, config.first_case_grace, entry=serve)
        from numfuzz.workers.ray_pool import RayPool

        # each node sets its workers' memory share and threads; None asks for an even share there
        pool = RayPool(config.ray, config.workers or None, self._worker_settings(), log_dir, config.memory_limit, config.first_case_grace, entry=serve)
        self.workers = len(pool.workers)
        logger.info("{} workers on the Ray cluster at {}: {}", self.workers, config.ray, pool.ray.cluster_resources())
        return pool

    def checkpoint(self) -> None:
        self.journal.save()
        if self.journal.directory is not None:
            header = {**self.journal.header(), "workers": self.workers, "minimizing": self.minimizing, "minimize_waiting": len(self.to_minimize)}
            if self.tail_deadline is not None:
                header["minimize_tail_left"] = round(max(self.tail_deadline - time.monotonic(), 0.0), 1)
            write_atomic(self.journal.directory / "fuzzer_stats", self.stats.fuzzer_stats(header))
            coverage = {t: dict(sorted(c.items())) for t, c in self.stats.coverage.items()}
            write_atomic(self.journal.directory / "coverage.json", json.dumps(coverage, indent=1) + "\n")
        self.bar.set_postfix_str(self._postfix(), refresh=True)

    def run(self) -> CampaignSummary:
        config = self.config
        log_dir = self.journal.directory
        sink = logger.add(log_dir / "numfuzz.log", level="DEBUG", rotation="50 MB", retention=3) if log_dir else None
        scratch = tempfile.TemporaryDirectory(prefix="numfuzz-workers-") if log_dir is None else None
        self.bar = tqdm(total=config.graphs, initial=self.journal.graphs_done, unit="graph", dynamic_ncols=True, disable=None if config.progress else True)
        logger.info(
            "campaign {} run {}: {} graphs done; targets {}; {} workers",
            self.journal.name,
            self.journal.runs,
            self.journal.graphs_done,
            list(config.targets),
            self.workers,
        )
        if self.findings_dir is not None and config.minimize:
            self._requeue_minimizations()
        deadline = time.monotonic() + config.seconds if config.seconds is not None else float("inf")
        pool = None
        nothing_left = config.graphs is not None and self.journal.graphs_done >= config.graphs and not self.to_minimize
        try:
            if nothing_left:
                return self.summary  # a finished campaign starts no worker
            pool = self._make_pool(log_dir or Path(scratch.name))
            last_checkpoint = time.monotonic()
            while True:
                issue = time.monotonic() < deadline
                for worker in pool.idle():
                    task = self._next_task(issue)
                    if task is None:
                        break
                    pool.dispatch(worker, task)
                if not any(w.task is not None and w.task.kind in ("case", "batch") for w in pool.workers) and not self.alone:
                    if self.exhausted and self.tail_deadline is None:
                        self._start_tail()
                    tail_over = self.tail_deadline is not None and time.monotonic() >= self.tail_deadline
                    if not issue or tail_over:  # what is left of the minimisations waits for the next run
                        if self.minimizing == 0:
                            break
                        self._cancel_minimizations(pool, "time is up" if not issue else "the --minimize-tail budget is spent")
                    elif self.exhausted and not self.to_minimize and self.minimizing == 0:
                        break
                self._cancel_minimizations(pool, "its budget is spent", due_only=True)
                for event in pool.poll(POLL_S):
                    self._on_event(pool, event)
                if time.monotonic() - last_checkpoint >= config.stats_interval:
                    self.checkpoint()
                    last_checkpoint = time.monotonic()
        except KeyboardInterrupt:
            self.summary.interrupted = True
            logger.warning("interrupted; the cases in flight run again on resume")
            if pool is not None:
                self._wind_down(pool)
        finally:
            if pool is not None:
                pool.close()
            self.checkpoint()
            self.bar.close()
            self.journal.close()
            self.summary.graphs_done = self.journal.graphs_done
            logger.info("campaign {} stopped: {}", self.journal.name, self.stats.postfix())
            if sink is not None:
                logger.remove(sink)
            if scratch is not None:
                scratch.cleanup()
        return self.summary


def run_campaign(config: CampaignConfig) -> CampaignSummary:
    """Run (or resume) a campaign until its budget is spent; see CampaignConfig."""
    return Campaign(config).run()
