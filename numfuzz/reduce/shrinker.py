"""The generic shrinker: the pass protocol and the driver. Knows nothing of compilers.

A candidate is accepted only when it is strictly smaller under `numfuzz.corpus.size_order.size_key`
and the predicate still holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Generator, Iterable, Protocol

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import SIZE_FIELDS, SizeKey, size_key


class PassError(RuntimeError):
    """A pass proposed a candidate that is not strictly smaller: a bug in the pass."""


class Exhausted(Exception):
    """The budget ran out."""


@dataclass
class Check:
    """What a predicate says of a candidate: keep it? `result` is stored on it (hints for passes)."""

    keep: bool
    result: dict | None = None
    cost: int = 1  # budget units spent: compiles, for a compiler predicate


Predicate = Callable[[Case], Check]


Candidates = Generator[Case, bool, None]


class ShrinkPass(Protocol):
    """A shrink pass: a `name` and a generator of candidates. The rules every pass keeps:

    1. Each candidate is strictly smaller than the current case under `size_key`; the driver
       raises PassError otherwise (filter with `numfuzz.corpus.size_order.smaller`).
    2. Each candidate is a whole, well-typed case with exact input values; an edit that cannot
       make one proposes nothing. The case handed in is never modified.
    3. The driver sends True after it accepted the candidate just yielded: later candidates
       build on that one. After False, they build on the case the pass holds.
    4. Deterministic: the same case gives the same candidates, in the same order.
    5. No compiles: only the predicate pays for running a candidate. Hints (the last outcome,
       the signature's culprit op) may order candidates, never decide.
    6. A pass that accepted nothing on a case proposes nothing new when run on it again, so the
       schedule reaches a fixpoint.
    """

    name: str

    def candidates(self, case: Case) -> Candidates:
        """Yield strictly smaller candidates; receive True after the one just yielded was accepted."""


@dataclass
class Step:
    pass_name: str
    size: SizeKey

    def to_json(self) -> dict:
        return {"pass": self.pass_name, "size": dict(zip(SIZE_FIELDS, self.size))}


@dataclass
class ShrinkResult:
    case: Case
    cost: int  # budget units spent (compiles)
    steps: list[Step] = field(default_factory=list)  # accepted candidates, in order
    exhausted: bool = False  # the budget ran out before a fixpoint
    spent: dict[str, int] = field(default_factory=dict)  # budget units by pass name


class _Enough(Exception):
    """The current case is small enough; not a budget that ran out."""


def shrink(
    case: Case,
    predicate: Predicate,
    schedule: Iterable[ShrinkPass],
    max_cost: float = math.inf,
    enough: Callable[[Case], bool] | None = None,
) -> ShrinkResult:
    """Greedy shrinking to a fixpoint of `schedule`, until `max_cost` is spent, or until `enough(case)`.

    `case` is assumed to satisfy the predicate; it is never re-checked.
    """
    schedule = list(schedule)
    result = ShrinkResult(case, 0)
    rejected: set[str] = set()
    if enough is not None and enough(case):
        return result

    def consider(candidate: Case, pass_name: str) -> bool:
        digest = candidate.content_hash()
        if digest in rejected:
            return False
        if result.cost >= max_cost:
            raise Exhausted
        check = predicate(candidate)
        result.cost += check.cost
        result.spent[pass_name] = result.spent.get(pass_name, 0) + check.cost
        if check.keep:
            candidate.result = check.result
            if enough is not None and enough(candidate):
                result.case = candidate
                result.steps.append(Step(pass_name, size_key(candidate)))
                raise _Enough
        else:
            rejected.add(digest)
        return check.keep

    try:
        progress = True
        while progress:
            progress = False
            for shrink_pass in schedule:
                while _run_pass(shrink_pass, result, consider):
                    progress = True
    except Exhausted:
        result.exhausted = True
    except _Enough:
        pass
    return result


def _run_pass(shrink_pass: ShrinkPass, result: ShrinkResult, consider: Callable[[Case, str], bool]) -> bool:
    """One run of a pass over the current case; True when it accepted anything."""
    accepted_any = False
    current_key = size_key(result.case)
    gen = shrink_pass.candidates(result.case)
    try:
        candidate = next(gen)
        while True:
            cand_key = size_key(candidate)
            if not cand_key < current_key:
                raise PassError(f"pass {shrink_pass.name} proposed a candidate that is not smaller: {cand_key} >= {current_key}")
            ok = consider(candidate, shrink_pass.name)
            if ok:
                result.case, current_key, accepted_any = candidate, cand_key, True
                result.steps.append(Step(shrink_pass.name, cand_key))
            candidate = gen.send(ok)
    except StopIteration:
        pass
    finally:
        gen.close()
    return accepted_any
