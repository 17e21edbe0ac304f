"""When a worker should leave because its memory grew too far."""

from __future__ import annotations

from dataclasses import dataclass

from numfuzz.workers.defaults import WARMUP_CASES


@dataclass
class RecyclePolicy:
    """When a worker should leave (the pool starts a fresh one) because its memory grew too far.

    Compiled programs leave state behind that no reset reaches: about 0.4 MiB a case under
    torch.compile, measured, mostly Python objects in the compilers' caches (fake-tensor
    dispatch entries, dynamo bytecode, registered ops) and kernel libraries that cannot be
    unloaded. A fresh process is the only sure way back.
    """

    growth: int | None  # bytes past the warm level (0: leave after every case)
    cap: int | None = None  # bytes of RSS, whatever the growth
    warm: int = 0  # the highest RSS over the first WARMUP_CASES cases
    seen: int = 0

    def should_leave(self, rss: int | None) -> bool:
        if rss is None:
            return False
        self.seen += 1
        if self.seen <= WARMUP_CASES:
            self.warm = max(self.warm, rss)
        grown = self.growth is not None and rss >= self.warm + self.growth
        return grown or bool(self.cap and rss > self.cap)
