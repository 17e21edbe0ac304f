"""Whether a worker process is inside a call into its target, in memory its parent reads after the worker died.

A worker that hangs or dies outside the target, while eager, the float64 reference or numfuzz's own analysis
runs, has met numfuzz's program or numfuzz itself, not a compiler: eager's integer division traps on the
lowest int64 divided by -1 (SIGFPE), a polynomial of degree 2**31 loops for minutes. The pool gives each
worker a shared byte (`shared_flag`), the worker hands it to `share`, and every call into the target
(`compile_modes.inside_target`) runs inside `crossed`; the pool reads it (`was_inside`) when the worker is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_flag: Any = None  # this worker's shared byte; None in a process no pool started (the flag is then nobody's to read)


def shared_flag(context: Any) -> Any:
    """A fresh byte for one worker process, shared with it (`context`: the pool's multiprocessing context)."""
    return context.Value("b", 0, lock=False)


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
    before = _flag.value
    _flag.value = 1
    try:
        yield
    finally:
        _flag.value = before


def was_inside(flag: Any) -> bool:
    """Was the worker owning `flag` inside the target when it last wrote it (when it died)?"""
    return flag is None or bool(flag.value)
