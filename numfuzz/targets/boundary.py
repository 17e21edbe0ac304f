"""Whether a worker process is inside a call into its target, in memory its parent reads after the worker died.

A worker that hangs or dies outside the target, while eager, the float64 reference or numfuzz's own analysis
runs, has met numfuzz's program or numfuzz itself, not a compiler: eager's integer division traps on the
lowest int64 divided by -1 (SIGFPE), a polynomial of degree 2**31 loops for minutes. The pool gives each
worker shared memory (`shared_flag`), the worker hands it to `share`, and every call into the target
(`compile_modes.inside_target`) runs inside `crossed`; the pool reads it (`was_inside`) when the worker is gone.

A hang inside the target is a finding only where the target had time to do eager's work several times over: a
case whose eager run takes a fifth of its limit (a polynomial of degree 2**31 - 2 takes eager 10 s a sample) is
too slow to tell a compiler's hang from the work. The worker adds up eager's seconds on its task (`eager_running`,
from `task_begins`), and the pool reads them (`eager_seconds`), a run under way when the worker was killed included.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_flag: Any = None  # this worker's shared memory; None in a process no pool started (then nobody's to read)
# its slots: inside the target (0 or 1), eager's finished seconds on the task in hand, and when eager's run under way
# began (time.monotonic, one clock for every process of the machine; 0 when none is)
_INSIDE, _EAGER_S, _EAGER_SINCE = 0, 1, 2
HANG_SHARE = 5  # a timeout in the target is judged where eager's own run took at most 1/HANG_SHARE of the task's limit


def shared_flag(context: Any) -> Any:
    """Fresh shared memory for one worker process (`context`: the pool's multiprocessing context)."""
    return context.Array("d", 3, lock=False)


def share(flag: Any) -> None:
    """In the worker: the byte its parent reads."""
    global _flag
    _flag = flag


@contextmanager
def crossed() -> Iterator[None]:
    """Inside a call into the target (its compile, its compiled forward or backward)."""
    if _flag is None:
        yield
        return
    before = _flag[_INSIDE]
    _flag[_INSIDE] = 1
    try:
        yield
    finally:
        _flag[_INSIDE] = before


def task_begins() -> None:
    """In the worker, as a task begins: no eager seconds yet."""
    if _flag is not None:
        _flag[_EAGER_S] = _flag[_EAGER_SINCE] = 0.0


@contextmanager
def eager_running() -> Iterator[None]:
    """Eager runs the program (its seconds count against a hang in the target)."""
    started = time.monotonic()
    if _flag is not None:
        _flag[_EAGER_SINCE] = started
    try:
        yield
    finally:
        if _flag is not None:
            _flag[_EAGER_S] += time.monotonic() - started
            _flag[_EAGER_SINCE] = 0.0


def was_inside(flag: Any) -> bool:
    """Was the worker owning `flag` inside the target when it last wrote it (when it died)?"""
    return flag is None or bool(flag[_INSIDE])


def eager_seconds(flag: Any) -> float:
    """Eager's seconds on the task the worker owning `flag` held, a run under way included (0 where unknown)."""
    if flag is None:
        return 0.0
    since = float(flag[_EAGER_SINCE])
    return float(flag[_EAGER_S]) + (time.monotonic() - since if since else 0.0)


def too_slow_to_judge(eager_s: float, limit_s: float) -> bool:
    """Did eager's own run take so much of the task's limit that a timeout in the target says nothing?"""
    return eager_s * HANG_SHARE > limit_s
