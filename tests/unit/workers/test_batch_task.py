"""A batch message in a worker: a case its batch did not judge runs alone on the case the batch made, not drawn again."""

from __future__ import annotations

import numfuzz.corpus.make as make
import numfuzz.workers.batch_task as batch_task
from numfuzz.address import CaseAddress
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec
from numfuzz.workers.messages import BatchRequest
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.worker_tasks import WorkerTasks


def test_cases_a_batch_did_not_judge_are_judged_alone_without_being_made_again(monkeypatch):
    made = []

    def counted(*args, **kwargs):
        case = make.make_case(*args, **kwargs)
        made.append(case)
        return case

    monkeypatch.setattr(batch_task, "make_case", counted)
    # the batch judges none of them (as when its compile fails): each runs alone
    monkeypatch.setattr(batch_task, "evaluate_batch", lambda cases, *args: ([None] * len(cases), {}))
    settings = WorkerSettings((RunSpec("eager", "cpu", samples=2),), GenConfig(max_nodes=2, max_dim=3, ops=("tanh", "add")))
    worker = WorkerTasks(settings, None)
    alone = []
    run_case = worker.run_case
    worker.run_case = lambda msg, made=None: alone.append(made) or run_case(msg, made)

    items = tuple(CaseAddress.fresh(7, k) for k in range(3))
    reply = worker.run_batch(BatchRequest("eager", items))

    assert len(made) == 3 and alone == made  # each case made once, by the batch, and judged alone as made
    assert [r.index for r in reply.replies] == [0, 1, 2]
    assert all(getattr(r, "outcome", None) and r.outcome["verdict"] == "equal" for r in reply.replies)
