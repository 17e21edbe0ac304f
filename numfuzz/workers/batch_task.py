"""Inside a worker: a batch message, run as one compile (`numfuzz.runner.batch`), answered with one reply per case."""

from __future__ import annotations

import dataclasses
import linecache
import time
from typing import Any

from numfuzz.corpus.case import Case
from numfuzz.corpus.make import make_case
from numfuzz.judge.execute import Outcome
from numfuzz.runner.batch import evaluate_batch
from numfuzz.workers.messages import BatchReply, BatchRequest, CaseRequest, CaseResult, ErrorReply
from numfuzz.workers.process_metrics import cpu_seconds, rss_bytes
from numfuzz.workers.timed_target import TimedTarget


def run_batch(worker: Any, msg: BatchRequest) -> BatchReply:
    """A worker's reply to a batch request: one reply per case, as `run_case` gives alone.

    `worker` is the worker's WorkerTasks (targets, settings, run_case).
    """
    target, items = msg.target, msg.items
    run = worker.settings.run_for(target)
    start_cpu, start_wall = cpu_seconds(), time.perf_counter()
    cases: list[Case | None] = []
    for address in items:
        try:
            cases.append(make_case(address, run, worker.settings.programs, worker.settings.mix))
        except Exception:  # run alone, it reports numfuzz's own error as usual
            cases.append(None)
    generated = cpu_seconds()
    timed = TimedTarget(worker.targets[target])
    made = [k for k, case in enumerate(cases) if case is not None]
    try:
        with worker.reaching(items[0], timed) as reach:  # a traced batch: its lines go with its first reply
            judged, searched = evaluate_batch([cases[k] for k in made], timed, worker.device, run.search)
    except Exception:  # numfuzz's own failure while batching: alone, each case reports it
        judged, searched = [None] * len(made), {}
    outcomes: dict[int, Outcome] = {k: outcome for k, outcome in zip(made, judged) if outcome is not None}
    clean = max(len(outcomes), 1)
    shared_cpu, shared_wall = cpu_seconds() - generated, time.perf_counter() - start_wall
    target_cpu = timed.compile_cpu + timed.run_cpu
    replies: list[CaseResult | ErrorReply] = []
    recycle = False
    for k, item in enumerate(items):
        if k not in outcomes:
            # the case as made for the batch (not drawn again), or with what its search found
            again = searched.get(made.index(k), cases[k]) if k in made else None
            reply = worker.run_case(CaseRequest(target, item), made=again)
            recycle = recycle or reply.recycle
            replies.append(dataclasses.replace(reply, recycle=False))  # the batch's reply says it, once
            continue
        case = cases[k]
        replies.append(CaseResult(
            item.index, target, outcomes[k].to_json(), batched=len(judged),
            ops=sorted({node.op for node in case.graph.nodes}), samples=len(case.samples), wall=shared_wall / clean,
            reach=(reach or None) if k == min(outcomes) else None, kinds=case.kinds,
            cpu={
                "generate": (generated - start_cpu) / len(items), "target_compile": timed.compile_cpu / clean,
                "target_run": timed.run_cpu / clean, "eval": max(shared_cpu - target_cpu, 0.0) / clean, "housekeeping": 0.0,
            },
        ))  # fmt: skip
    linecache.clearcache()
    rss = rss_bytes()
    return BatchReply(target, replies, rss, recycle or worker.recycle.should_leave(rss))
