"""The worker messages: typed, picklable, torch-free, and what each task sends."""

from __future__ import annotations

import pickle
import subprocess
import sys

from numfuzz.address import CaseAddress
from numfuzz.workers.messages import (
    BatchReply,
    BatchRequest,
    Cancel,
    CaseRequest,
    CaseResult,
    ErrorReply,
    Evaluated,
    EvaluateRequest,
    Failed,
    Minimized,
    MinimizeRequest,
    Progress,
    Ready,
    Stop,
    TargetInfo,
)
from numfuzz.workers.pool import Restarted, Task

OUTCOME = {"verdict": "equal", "detail": ""}


def test_every_message_survives_pickling():
    messages = [
        CaseRequest("eager", CaseAddress(99, 3, 5, (7,))),
        BatchRequest("inductor", (CaseAddress(1, 0, 5), CaseAddress(3, 2, 5))),
        EvaluateRequest(0, "eager", {"graph": {}}),
        MinimizeRequest("eager", {"graph": {}}, "abc", "key", 60.0, budget=40.0, clock={"ceiling": 1.0}),
        Cancel(),
        Stop(),
        Ready(123, 1.5, 2**30, {"inductor": TargetInfo(8, {"fp32": 16})}),
        Failed("Traceback ..."),
        CaseResult(3, "eager", OUTCOME, ops=["add"], samples=4, wall=0.1, cpu={"generate": 0.01}),
        ErrorReply(3, "eager", "Traceback ...", rss=1),
        BatchReply("inductor", [CaseResult(0, "inductor", OUTCOME, batched=2), ErrorReply(2, "inductor", "boom")], 5, False),
        Evaluated(0, OUTCOME, 7, True),
        Minimized("abc", "key", summary="3 -> 1 ops", candidate_s=[0.5]),
        Progress("abc", "shrink", candidates=4, nodes=2, from_nodes=5, verdict="timeout", kept=True),
        Restarted("recycled", 10, 2**30),
    ]
    for message in messages:
        assert pickle.loads(pickle.dumps(message)) == message, type(message).__name__


def test_each_task_kind_sends_its_own_request():
    assert Task("case", 4, "eager", 10.0, address=CaseAddress(7, 4)).message() == CaseRequest("eager", CaseAddress(7, 4))
    batch = Task("batch", 0, "inductor", 20.0, items=[CaseAddress(1, 0), CaseAddress(5, 2)])
    assert batch.message() == BatchRequest("inductor", (CaseAddress(1, 0), CaseAddress(5, 2)))
    assert Task("evaluate", 2, "eager", 10.0, {"g": 1}).message() == EvaluateRequest(2, "eager", {"g": 1})
    minimize = Task("minimize", 9, "eager", 80.0, {"g": 1}, "stem", "key", budget=60.0, clock={"ceiling": 5.0})
    assert minimize.message() == MinimizeRequest("eager", {"g": 1}, "stem", "key", 80.0, 60.0, {"ceiling": 5.0})


def test_the_messages_and_the_pool_import_no_torch():
    # a worker unpickles its settings and first message before it imports torch
    code = "import sys, numfuzz.workers.messages, numfuzz.workers.pool, numfuzz.workers.settings; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
