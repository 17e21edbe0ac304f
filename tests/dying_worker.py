"""A worker main for the pool's tests: ready at once, then dies of SIGFPE on its first task, inside its target
(`boundary.crossed`) when the task's target is "inside", else outside it (as eager's integer division traps)."""

from __future__ import annotations

import os
import signal
from typing import Any

from numfuzz.targets.boundary import crossed, share
from numfuzz.workers.messages import Ready


def serve(conn: Any, settings: Any, inside: Any = None) -> None:
    share(inside)
    conn.send(Ready(os.getpid(), 0.0, None))
    msg = conn.recv()
    if msg.target == "inside":
        with crossed():
            os.kill(os.getpid(), signal.SIGFPE)
    os.kill(os.getpid(), signal.SIGFPE)
