"""A target that holds its cases at a gate, so that a test can kill a campaign mid-case, whatever the machine's speed.

`gated` is eager with NaN outputs: every case is a `nonfinite` finding, so that a lost case shows.
Each worker process runs its first FREE cases straight through. Where $NUMFUZZ_TEST_GATE names a
folder, every later case then waits in `prepare` (mid-case: eager and the reference have run)
until that folder holds a file `open`; a case that waits first leaves `waiting-<pid>` there. A
campaign of more than FREE graphs per worker is thus still running when its workers wait, and
finishes once the test opens the gate. Compiles nothing; needs no Thunder. Import it with
`--import tests/gated_target.py` (workers import it too).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

import torch

from numfuzz.targets import register
from numfuzz.targets.eager import Eager

GATE = "NUMFUZZ_TEST_GATE"
FREE = 10  # compiles per worker process before the gate: enough for the Ray pool to time 8 tasks, with an analysis per case
_prepared = 0  # cases this process has prepared


def open_gate(folder: Path) -> None:
    (folder / "open").touch()


def waiting(folder: Path) -> list[int]:
    """The processes that have waited at this gate (some may have been killed since)."""
    return sorted(int(p.name.split("-", 1)[1]) for p in folder.glob("waiting-*"))


def _wait_at_gate() -> None:
    folder = os.environ.get(GATE)
    if not folder or (Path(folder) / "open").exists():
        return
    (Path(folder) / f"waiting-{os.getpid()}").touch()
    while not (Path(folder) / "open").exists():
        time.sleep(0.05)


class Gated(Eager):
    name = "gated"

    def prepare(self, fn: Callable, device: str) -> Callable:
        global _prepared
        _prepared += 1
        if _prepared > FREE:
            _wait_at_gate()

        def run(*args):
            out = fn(*args)
            return tuple(torch.full_like(t, float("nan")) for t in (out if isinstance(out, (tuple, list)) else (out,)))

        return run


register("gated", lambda arg: Gated(), "eager with NaN outputs, held at a gate after a few cases per worker (tests only)")
