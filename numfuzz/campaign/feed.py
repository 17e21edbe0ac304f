"""Which cases go to a worker next: one at a time, or K of one target as a batch compiled together.

A batch's reply holds one reply per case, which the campaign records one by one as if they had
come alone. A batch that killed its worker (a crash, a hang) is not recorded at all: each of
its cases goes back to the front of the queue, to run alone.
"""

from __future__ import annotations

from collections import deque
from typing import Iterator

from loguru import logger

from numfuzz.address import CaseAddress
from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.guidance import Guide
from numfuzz.campaign.journal import shard_index
from numfuzz.workers.messages import TargetInfo
from numfuzz.workers.pool import Event, Lost, Task


class CaseFeed:
    """Hands out case and batch tasks from the journal's pending cases; splits batch replies into case replies.

    `pending` yields (ordinal, target) of this shard's cases still to run. `batch` is the cases
    per compile for every target, or None for each target's own default.
    """

    def __init__(self, config: CampaignConfig, pending: Iterator[tuple[int, str]], batch: int | None, guide: Guide | None = None):
        self.config = config
        self.pending = pending
        self.guide = guide  # draws guided children (`campaign.guidance`); each runs alone
        # Each target's default comes from the workers as they start (they resolve the targets
        # anyway; the parent never does). Until the first worker is ready no case is handed out:
        # a local worker is ready before it can take one, and a Ray actor would only queue it.
        self.batch: dict[str, int] | None = None if batch is None else dict.fromkeys(config.targets, max(batch, 1))
        self.held: deque[tuple[int, str]] = deque()  # pending cases of other targets, passed over to fill a batch
        self.alone: deque[Task] = deque()  # cases of a lost batch, each to run by itself

    @property
    def ready(self) -> bool:
        """Whether the batch sizes are known, so that cases can be handed out."""
        return self.batch is not None

    def targets_known(self, targets: dict[str, TargetInfo]) -> None:
        """A worker is ready and says what its targets are like; the first one decides the batch sizes."""
        if self.batch is None:
            self.batch = {spec: targets[spec].batch_default if spec in targets else 1 for spec in self.config.targets}

    def next_task(self) -> Task | None:
        """A case or batch task, or None when every case within the budget is handed out (call once `ready`)."""
        if self.alone:
            return self.alone.popleft()
        first = self._pull()
        if first is None:
            return None
        tasks = [self._single(*first)]
        if tasks[0].address.lineage:  # a child is judged by its own compile
            return tasks[0]
        while len(tasks) < (self.batch or {}).get(first[1], 1):
            item = self._pull(first[1])
            if item is None:
                break
            task = self._single(*item)
            if task.address.lineage:
                self.alone.append(task)
            else:
                tasks.append(task)
        if len(tasks) == 1:
            return tasks[0]
        batch = Task("batch", tasks[0].index, first[1], self.config.case_timeout * len(tasks))
        batch.items = [t.address for t in tasks]
        return batch

    def split_batch(self, event: Event) -> list[Event]:
        """A batch's reply as one reply event per case."""
        addresses = {a.index: a for a in event.task.items}
        events = []
        for reply in event.reply.replies:
            task = Task("case", reply.index, event.task.target, self.config.case_timeout, address=addresses[reply.index])
            events.append(Event("reply", event.slot, reply=reply, task=task))
        return events

    def batch_lost(self, lost: Lost) -> None:
        """A batch took its worker down: each of its cases runs again alone, first."""
        task = lost.task
        self.alone.extendleft(Task("case", a.index, task.target, self.config.case_timeout, address=a) for a in reversed(task.items))
        logger.info("a batch of {} cases on {} ended in {} ({}); each runs again alone", len(task.items), task.target, lost.verdict.value, lost.detail)

    def _pull(self, target: str | None = None) -> tuple[int, str] | None:
        """The next pending (ordinal, target); of `target` only when given (the others are held)."""
        for k, item in enumerate(self.held):
            if target is None or item[1] == target:
                del self.held[k]
                return item
        for item in self.pending:
            if target is None or item[1] == target:
                return item
            self.held.append(item)
        return None

    def _single(self, ordinal: int, target: str) -> Task:
        index = shard_index(self.config.shard, ordinal)
        address = CaseAddress.fresh(self.config.seed, index)
        if self.guide is not None:
            address = self.guide.draw(address)
        return Task("case", index, target, self.config.case_timeout, address=address)
