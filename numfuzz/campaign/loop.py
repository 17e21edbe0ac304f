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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loguru import logger
from tqdm import tqdm

from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.dedupe import Dedupe
from numfuzz.campaign.defaults import available_cores, default_memory_limit
from numfuzz.campaign.feed import CaseFeed
from numfuzz.campaign.guidance import Guide
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.log_format import LOG_FORMAT
from numfuzz.campaign.minimize_scheduler import MinimizeScheduler
from numfuzz.campaign.recorder import Finding, ResultRecorder
from numfuzz.campaign.stats import CampaignStats
from numfuzz.corpus.known import load_known
from numfuzz.corpus.store import write_atomic
from numfuzz.judge.bounds import active_bounds, bound_files_in_force
from numfuzz.workers.messages import CaseResult
from numfuzz.workers.pool import Event, Pool, Task
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


class Campaign:
    """One run of a campaign: the loop, and the parts it owns and calls.

    The `feed` hands out cases, the `recorder` saves and counts what they found, the `minimizer`
    schedules the findings' minimisations; the pool's events reach each through `_on_event`.
    """

    def __init__(self, config: CampaignConfig):
        self.config = config
        self.workers = config.workers  # with Ray, the cluster's size decides once the pool is up
        self.memory_limit = default_memory_limit(config.workers) if config.memory_limit is None else (config.memory_limit or None)
        self.journal = Journal.open(config.corpus, config.identity(), list(config.targets))
        self.stats = self.journal.stats
        self.bar: Any = None  # the progress bar, while running
        self.guide = Guide(config.guided_share, Guide.parents_from_json(self.journal.guide_pool))
        self.feed = CaseFeed(config, self.journal.pending(config.graphs), config.batch, self.guide)
        self.recorder = ResultRecorder(config, self.journal, on_graph=lambda: self.bar.update(1), guide=self.guide)
        # --bounds, as the workers get them: in force in this process while `run_campaign` runs
        dedupe = Dedupe(self.journal.minimize_keys, load_known(config.known_files), config.corpus, active_bounds())
        self.minimizer = MinimizeScheduler(config, self.journal, dedupe, self.recorder.save)
        self.summary = CampaignSummary(self.stats, self.recorder.findings, self.minimizer.minimized, directory=self.journal.directory)
        self.exhausted = False  # every case within the graph budget has been handed out

    def _next_task(self, issue_cases: bool) -> Task | None:
        if not issue_cases:
            return None
        # one minimisation at a time while there are cases to run; after them, on every idle worker
        task = self.minimizer.next_task(cases_left=not self.exhausted)
        if task is not None or not self.feed.ready:  # no worker has started yet: see CaseFeed
            return task
        task = self.feed.next_task()
        self.exhausted = task is None
        return task

    def _on_event(self, pool: Any, event: Event) -> None:
        if event.kind == "reply":
            worker = pool.workers[event.slot]
            self.stats.record_memory(event.slot, worker.tasks_served, event.reply.rss)
            if event.task.kind == "minimize":
                return self.minimizer.finished(event.task, event.reply)
            for one in self.feed.split_batch(event) if event.task.kind == "batch" else [event]:
                if isinstance(one.reply, CaseResult) and one.reply.batched is None:  # how long this target's cases take alone
                    self.minimizer.observe(one.task.target, float(one.reply.wall), fresh=worker.tasks_served == 1)
                self._found(self.recorder.record(one.task, one.reply))
        elif event.kind == "lost":
            kind = event.lost.task.kind
            if kind == "batch":
                self.feed.batch_lost(event.lost)
            elif kind == "minimize":
                self.minimizer.lost(event.lost)
            else:
                self._found(self.recorder.record_lost(event.lost))
        elif event.kind == "progress":
            self.minimizer.progress(event.reply)
            self.bar.set_postfix_str(self._postfix(), refresh=True)
        elif event.kind == "ready":
            self.feed.targets_known(event.reply.targets)
        else:
            why, rss = event.reply.why, event.reply.rss
            self.stats.restarts[why] += 1
            at = f" at {rss / 2**20:.0f} MiB RSS" if rss else ""
            logger.info("worker {} restarted ({}) after {} tasks{}", event.slot, why, event.reply.served, at)

    def _found(self, finding: Finding | None) -> None:
        if finding is not None:
            self.minimizer.consider(finding)

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

    def _postfix(self) -> str:
        board = self.minimizer.board.text()  # first: a narrow terminal cuts the end of the line
        return f"{board} | {self.stats.postfix()}" if board else self.stats.postfix()

    def checkpoint(self) -> None:
        self.journal.guide_pool = self.guide.to_json()
        self.journal.save()
        if self.journal.directory is not None:
            header = {**self.journal.header(), "workers": self.workers, **self.minimizer.header(), **self.guide.rows()}
            write_atomic(self.journal.directory / "fuzzer_stats", self.stats.fuzzer_stats(header))
            coverage = {t: dict(sorted(c.items())) for t, c in self.stats.coverage.items()}
            write_atomic(self.journal.directory / "coverage.json", json.dumps(coverage, indent=1) + "\n")
        self.bar.set_postfix_str(self._postfix(), refresh=True)

    def run(self) -> CampaignSummary:
        config = self.config
        log_dir = self.journal.directory
        sink = logger.add(log_dir / "numfuzz.log", format=LOG_FORMAT, level="DEBUG", rotation="50 MB", retention=3) if log_dir else None
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
        if config.corpus is not None and config.minimize:
            self.minimizer.requeue()
        deadline = time.monotonic() + config.seconds if config.seconds is not None else float("inf")
        pool = None
        nothing_left = config.graphs is not None and self.journal.graphs_done >= config.graphs and not self.minimizer.waiting
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
                minimizer = self.minimizer
                # cases waiting to run alone (a lost batch's, guided children) wait for the next run once time is up
                waiting = issue and self.feed.alone
                if not any(w.task is not None and w.task.kind in ("case", "batch") for w in pool.workers) and not waiting:
                    if self.exhausted and minimizer.tail_deadline is None and minimizer.start_tail():
                        self.bar.set_description_str("minimising")
                    if not issue or minimizer.tail_over:  # what is left of the minimisations waits for the next run
                        if minimizer.running == 0:
                            break
                        minimizer.cancel(pool, "time is up" if not issue else "the --minimize-tail budget is spent")
                    elif self.exhausted and not minimizer.waiting and minimizer.running == 0:
                        break
                minimizer.cancel(pool, "its budget is spent", due_only=True)
                for event in pool.poll(POLL_S):
                    self._on_event(pool, event)
                if time.monotonic() - last_checkpoint >= config.stats_interval:
                    self.checkpoint()
                    last_checkpoint = time.monotonic()
        except KeyboardInterrupt:
            self.summary.interrupted = True
            logger.warning("interrupted; the cases in flight run again on resume")
            if pool is not None:
                self.minimizer.wind_down(pool, lambda event: self._on_event(pool, event))
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
    """Run (or resume) a campaign until its budget is spent; see CampaignConfig. While it runs this process judges (the
    corpus's groups, the summary) by its bounds, as its workers do."""
    with bound_files_in_force(config.bound_files):
        return Campaign(config).run()
