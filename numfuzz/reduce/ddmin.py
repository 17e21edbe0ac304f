"""Delta debugging, the building block of passes that cut a list of units."""

from __future__ import annotations

from typing import Callable, Generator

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import smaller


def chunks(n: int, parts: int) -> list[list[int]]:
    size = -(-n // parts)
    return [list(range(s, min(s + size, n))) for s in range(0, n, size)]


def ddmin(case: Case, count: Callable[[Case], int], keep: Callable[[Case, list[int]], Case | None]) -> Generator[Case, bool, Case]:
    """Delta debugging over `count(case)` units: propose keeping subsets, then complements.

    `keep(case, indices)` builds the candidate that keeps those units (None if none). Returns the last accepted case.
    """
    current = case
    n, parts = count(current), 2
    while n >= 2:
        progressed = False
        pieces = chunks(n, parts)
        for piece in pieces:
            candidate = smaller(keep(current, piece), current)
            if candidate is not None and (yield candidate):
                current, n, parts, progressed = candidate, count(candidate), 2, True
                break
        if not progressed and len(pieces) > 2:
            for piece in pieces:
                drop = set(piece)
                candidate = smaller(keep(current, [i for i in range(n) if i not in drop]), current)
                if candidate is not None and (yield candidate):
                    current, n, parts, progressed = candidate, count(candidate), max(parts - 1, 2), True
                    break
        if not progressed:
            if parts >= n:
                break
            parts = min(2 * parts, n)
    return current
