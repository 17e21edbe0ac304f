"""The case feed: batch sizes from the first ready worker, and nothing handed out before it. No workers."""

from __future__ import annotations

from helpers import plain_config

from numfuzz.campaign.feed import CaseFeed
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.messages import BatchReply, CaseResult, TargetInfo
from numfuzz.workers.pool import Event, Lost, Task

CONFIG = plain_config(targets=("inductor", "eager"), graphs=3, progress=False)


def _pending(graphs: int = 3):
    return iter([(ordinal, target) for ordinal in range(graphs) for target in CONFIG.targets])


def test_the_first_ready_worker_decides_the_batch_sizes():
    feed = CaseFeed(CONFIG, _pending(), batch=None)
    assert not feed.ready  # the parent never resolves a target itself
    feed.targets_known({"inductor": TargetInfo(batch_default=2), "eager": TargetInfo()})
    feed.targets_known({"inductor": TargetInfo(batch_default=8), "eager": TargetInfo()})  # later workers change nothing
    assert feed.ready and feed.batch == {"inductor": 2, "eager": 1}
    first = feed.next_task()
    assert first.kind == "batch" and first.target == "inductor" and [a.index for a in first.items] == [0, 1]
    kinds = [(t.kind, t.target) for t in iter(feed.next_task, None)]
    assert kinds == [("case", "eager"), ("case", "eager"), ("case", "inductor"), ("case", "eager")]


def test_a_batch_size_given_for_all_needs_no_worker():
    feed = CaseFeed(CONFIG, _pending(), batch=3)
    assert feed.ready and feed.batch == {"inductor": 3, "eager": 3}


def test_a_batch_reply_splits_and_a_lost_batch_runs_again_alone():
    feed = CaseFeed(CONFIG, _pending(), batch=2)
    batch = feed.next_task()
    outcome = {"verdict": Verdict.EQUAL.value}
    reply = BatchReply("inductor", [CaseResult(index, "inductor", outcome, batched=2) for index in (a.index for a in batch.items)], None, False)
    split = feed.split_batch(Event("reply", 0, reply=reply, task=batch))
    assert [(e.task.kind, e.task.index, e.task.address) for e in split] == [("case", a.index, a) for a in batch.items]
    feed.batch_lost(Lost(batch, Verdict.SEGFAULT, "worker killed by SIGSEGV", "", 0))
    again = [feed.next_task(), feed.next_task()]
    assert [(t.kind, t.index) for t in again] == [("case", a.index) for a in batch.items]
    assert isinstance(feed.next_task(), Task)
