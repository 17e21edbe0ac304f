"""What a campaign keeps of each case: findings and numfuzz's own errors saved, the case counted and marked done.

Each finding is saved atomically before its case is marked done in the journal, so a SIGKILL at
any moment loses no finding. A case whose worker died is rebuilt here from its seed and saved as
a finding of that death.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from loguru import logger

from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.guidance import Guide
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.stats import CampaignStats
from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.store import save_case
from numfuzz.judge.execute import OWN_MARK
from numfuzz.judge.facts import Analysis
from numfuzz.judge.signature import Signature, mode_label
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.messages import CaseResult, ErrorReply
from numfuzz.workers.pool import Lost, Task


@dataclass
class Finding:
    """A finding just saved, for the minimiser's scheduler to decide on."""

    case: Case
    path: Path  # where it was saved; its stem names the finding
    index: int  # the campaign's case index
    outcome: dict[str, Any]  # Outcome.to_json()


class ResultRecorder:
    """Saves what the cases found, counts them in `stats` and marks them done in `journal`.

    `findings` and `errors` collect the paths saved in this run; `on_graph` is called once for
    each graph done on every target (the progress bar).
    """

    def __init__(self, config: CampaignConfig, journal: Journal, on_graph: Callable[[], None], guide: Guide | None = None):
        self.config = config
        self.guide = guide
        self.journal = journal
        self.stats: CampaignStats = journal.stats
        self.on_graph = on_graph
        self.findings: list[Path] = []

    def save(self, case: Case, folder: str) -> Path | None:
        """Into `folder` of the corpus; None without a corpus."""
        if self.config.corpus is None:
            return None
        return save_case(case, self.config.corpus / folder)

    def record(self, task: Task, reply: CaseResult | ErrorReply) -> Finding | None:
        """A case's reply: saved if a finding (returned) or numfuzz's own error, then counted."""
        try:
            case = Case.from_json(reply.case) if reply.case else None
        except CaseError as exc:  # numfuzz made a case it cannot read back: its own error, and the campaign goes on
            logger.error("numfuzz failed on case {} ({}): its case does not load: {}", task.index, task.target, exc)
            self._finish(task, None, reply.ops, 0, reply)
            return None
        if isinstance(reply, ErrorReply):
            path = None
            if case is not None:
                case.extra["error"] = reply.error
                path = self.save(case, "errors")
            logger.error("numfuzz failed on case {} ({}): {}; saved as {}", task.index, task.target, reply.error.strip().splitlines()[-1], path)
            self._finish(task, None, reply.ops, 0, reply)
            return None
        outcome = reply.outcome
        verdict = Verdict(outcome["verdict"])
        found = None
        if verdict.is_finding:
            case.result = outcome
            case.extra["campaign"] = {"index": task.index, "seed": task.address.seed, **self.journal.identity}
            path = self.save(case, "findings")
            if path is not None:
                self.findings.append(path)
                found = Finding(case, path, task.index, outcome)
            logger.info("finding: {} on {} (case {}): {} -> {}", verdict.value, task.target, task.index, outcome.get("detail", ""), path)
        elif verdict.is_listed_benign and case is not None:  # no finding, but `numfuzz corpus --all` lists it
            case.result = outcome
            case.extra["campaign"] = {"index": task.index, "seed": task.address.seed, **self.journal.identity}
            facts = Analysis.from_json(outcome["analysis"]) if isinstance(outcome.get("analysis"), dict) else None
            if facts is not None and facts.op:  # its own group, named by its culprit (no cause: it joins no finding's group)
                signature = Signature(task.target, verdict.value, (facts.op,), facts.dtype, mode=mode_label(case.run, case.graph))
                case.extra["signature"] = replace(signature, at=str(outcome.get("at", ""))).to_json()
            path = self.save(case, "rounding")
            logger.debug("case {} on {}: {} -> {}", task.index, task.target, verdict.value, path)
        elif _own_mark(verdict, outcome):  # numfuzz's doing, at the first size or the second: no finding
            self.stats.own_marks += 1
            logger.info("case {} on {}: {}, numfuzz marked a dim the program specialises", task.index, task.target, verdict.value)
        else:
            logger.debug("case {} on {}: {}", task.index, task.target, verdict.value)
        self._finish(task, verdict, reply.ops, reply.samples, reply)
        return found

    def record_lost(self, lost: Lost) -> Finding | None:
        """A worker died or was killed holding this case: it becomes a finding of that symptom."""
        from numfuzz.corpus.make import make_case
        from numfuzz.judge.execute import Outcome

        task = lost.task
        # The seed makes the same case again: the parent rebuilds what the worker was running.
        try:
            case = make_case(task.address, self.config.run_for(task.target), self.config.gen, self.config.mix)
        except Exception as exc:  # the generator's bug; the worker would have reported it had it lived
            logger.error("case {} ({}) was lost ({}) and cannot be rebuilt: {}", task.index, task.target, lost.verdict.value, exc)
            self._finish(task, None, [], 0, None)
            return None
        case.extra["campaign"] = {"index": task.index, "seed": task.address.seed, **self.journal.identity}
        case.extra["worker_log"] = lost.log_tail[-3000:]
        ops = sorted({n.op for n in case.graph.nodes})
        if not lost.in_target:
            return self._lost_outside(task, lost, case, ops)
        if lost.eager_too_slow:  # the case's own cost, not the target's hang: no verdict on it
            logger.warning("case {} ({}) is invalid: {}", task.index, task.target, lost.eager_too_slow)
            self._finish(task, Verdict.INVALID, ops, 0, None)
            return None
        case.result = Outcome(lost.verdict, lost.detail).to_json()
        path = self.save(case, "findings")
        found = None
        if path is not None:
            self.findings.append(path)
            found = Finding(case, path, task.index, case.result)  # minimised in a worker, through an isolated one
        logger.info("finding: {} on {} (case {}): {} -> {}", lost.verdict.value, task.target, task.index, lost.detail, path)
        self._finish(task, lost.verdict, ops, 0, None)
        return found

    def _lost_outside(self, task: Task, lost: Lost, case: Case, ops: list[str]) -> None:
        """A worker lost outside the target (`boundary`): no finding. Eager dying of a signal (its integer division of
        the lowest value by -1 traps) makes the case invalid; a hang or the memory there is numfuzz's own error, except a
        hang where eager itself took a fifth of the limit: the program's own cost (polygamma(2, x) takes time linear in
        |x| for negative x, eager's and the float64 reference's alike), so the case is invalid."""
        if lost.eager_too_slow:
            logger.warning("case {} ({}) is invalid: {}", task.index, task.target, lost.eager_too_slow)
            self._finish(task, Verdict.INVALID, ops, 0, None)
            return None
        if lost.verdict in (Verdict.TIMEOUT, Verdict.OOM):
            case.extra["error"] = f"{lost.verdict.value} outside the target (eager, the float64 reference or numfuzz's analysis): {lost.detail}"
            path = self.save(case, "errors")
            logger.error("numfuzz failed on case {} ({}): {}; saved as {}", task.index, task.target, case.extra["error"], path)
            self._finish(task, None, ops, 0, None)
            return None
        logger.info("case {} on {}: eager's side died ({}): invalid", task.index, task.target, lost.detail)
        self._finish(task, Verdict.INVALID, ops, 0, None)
        return None

    def _finish(self, task: Task, verdict: Verdict | None, ops: list[str], samples: int, reply: CaseResult | ErrorReply | None) -> None:
        """Count the case and mark it done; `verdict` None: numfuzz itself failed on it; `reply` None: its worker died."""
        cpu, wall = (reply.cpu, float(reply.wall or 0.0)) if reply is not None else (None, 0.0)
        self.stats.record(task.target, verdict, ops, samples, cpu, wall)
        reach = reply.reach if isinstance(reply, CaseResult) else None
        new_code = self.stats.record_reach(reach, ops) if reach is not None else False
        if self.guide is not None and task.address is not None:
            self.guide.record(task.address.seed, task.address.lineage, reach is not None, new_code)
        self.stats.batched += isinstance(reply, CaseResult) and reply.batched is not None
        if isinstance(reply, CaseResult):
            self.stats.kinds.update(reply.kinds)
        ordinal = (task.index - self.config.shard[0]) // self.config.shard[1]
        if self.journal.mark_done(ordinal, task.target):
            self.stats.run_graphs += 1
            self.on_graph()


def _own_mark(verdict: Verdict, outcome: dict[str, Any]) -> bool:
    """Did a dim numfuzz marked dynamic, which the program specialises, make the case (or its second size) invalid?"""
    if verdict is Verdict.INVALID and str(outcome.get("detail", "")).startswith(OWN_MARK):
        return True
    second = outcome.get("second_size")
    return isinstance(second, dict) and bool(second.get("own_mark"))
