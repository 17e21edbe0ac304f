"""The generic shrinker: a size order, a pass protocol, and the driver. Knows nothing of compilers.

THE size order (`size_key`) is lexicographic over, in this order:

 1. nodes            -- ops in the graph
 2. outputs
 3. inputs
 4. dtypes           -- distinct dtypes over every value of the graph
 5. scalars          -- input elements over all samples (samples x sum of input numel)
 6. samples
 7. rank             -- sum of the inputs' ranks
 8. distinct values  -- distinct input values (float64 bit patterns) over all samples
 9. value cost       -- sum over input elements of `value_cost`: 0 is simplest, then +-1,
                        then other powers of two, then values with more significant bits
                        (then more bits set, then an exponent further from 0, then negative)

A candidate is accepted only when it is strictly smaller under this order and the predicate
still holds. Every component is a natural number, so the order is well founded: with or
without a budget, shrinking terminates.

A pass is an object with a `name` and `candidates(case)`, a generator of candidates each
strictly smaller than the current case. The driver sends back True when it accepted the
candidate just yielded; the pass then builds its next candidates on that one. A pass that
yields a candidate not strictly smaller is a bug and raises PassError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Generator, Iterable, Protocol

import numpy as np

from numfuzz.corpus import Case
from numfuzz.ops import infer_specs

SizeKey = tuple[int, ...]
SIZE_FIELDS = ("nodes", "outputs", "inputs", "dtypes", "scalars", "samples", "rank", "distinct", "value_cost")
# Weights so that each criterion outweighs all later ones: |exponent| <= 1075, set bits <= 53.
_EXP_WEIGHT, _SET_BIT_WEIGHT, _SIG_WEIGHT = 2, 4096, 4096 * 64
NONFINITE_COST = 1 << 24  # above any finite value's cost


class PassError(RuntimeError):
    """A pass proposed a candidate that is not strictly smaller: a bug in the pass."""


class Exhausted(Exception):
    """The budget ran out."""


def value_cost(values: np.ndarray) -> np.ndarray:
    """Per element: 0 for +0; else by significant bits, then set bits, then |exponent|, then sign."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    cost = np.zeros(v.shape, dtype=np.int64)
    finite = np.isfinite(v)
    nonzero = finite & (v != 0)
    mant, exp = np.frexp(np.abs(v[nonzero]))
    m = (mant * 2.0**53).astype(np.int64)
    low_bit = m & -m
    sig = 53 - np.round(np.log2(low_bit.astype(np.float64))).astype(np.int64)
    set_bits = np.unpackbits(m.view(np.uint8)).reshape(-1, 64).sum(axis=1).astype(np.int64)
    cost[nonzero] = sig * _SIG_WEIGHT + set_bits * _SET_BIT_WEIGHT + _EXP_WEIGHT * np.abs(exp - 1)
    cost[~finite] = NONFINITE_COST
    cost += np.signbit(v).astype(np.int64)
    return cost


def input_values(case: Case) -> np.ndarray:
    """Every input element of every sample, as float64, flat."""
    parts = [t.to("cpu").double().reshape(-1).numpy() for sample in case.tensors() for t in sample]
    return np.concatenate(parts) if parts else np.zeros(0)


def size_key(case: Case) -> SizeKey:
    """THE size order; see the module docstring. Defined here and nowhere else."""
    g = case.graph
    values = input_values(case)
    return (
        len(g.nodes),
        len(g.outputs),
        len(g.inputs),
        len({s.dtype for s in infer_specs(g)}),
        values.size,
        len(case.samples),
        sum(len(s.shape) for s in g.inputs),
        len(np.unique(values.view(np.int64))),
        int(value_cost(values).sum()),
    )


def smaller(candidate: Case | None, than: Case) -> Case | None:
    """The candidate when it is strictly smaller than `than`, else None: passes filter with this."""
    if candidate is None or candidate.content_hash() == than.content_hash():
        return None
    return candidate if size_key(candidate) < size_key(than) else None


@dataclass
class Check:
    """What a predicate says of a candidate: keep it? `result` is stored on it (hints for passes)."""

    keep: bool
    result: dict | None = None
    cost: int = 1  # budget units spent: compiles, for a compiler predicate


Predicate = Callable[[Case], Check]
Candidates = Generator[Case, bool, None]


class ShrinkPass(Protocol):
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


def shrink(case: Case, predicate: Predicate, schedule: Iterable[ShrinkPass], max_cost: float = math.inf) -> ShrinkResult:
    """Greedy shrinking to a fixpoint of `schedule`, or until `max_cost` is spent.

    `case` is assumed to satisfy the predicate; it is never re-checked.
    """
    schedule = list(schedule)
    result = ShrinkResult(case, 0)
    rejected: set[str] = set()

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


# --- building blocks for passes ------------------------------------------------------------


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
