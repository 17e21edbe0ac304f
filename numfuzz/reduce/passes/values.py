"""Simplifying input values: toward 0, +-1 and powers of two, fewer significant bits, fewer distinct values."""

from __future__ import annotations

import math
from typing import Generator

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import input_values, smaller, value_cost
from numfuzz.program.values import round_significand
from numfuzz.reduce.case_edit import map_inputs
from numfuzz.reduce.shrinker import Candidates


def _sig_bits(v: float) -> int:
    if v == 0 or not math.isfinite(v):
        return 0
    m = int(abs(math.frexp(v)[0]) * 2.0**53)
    return 53 - ((m & -m).bit_length() - 1)


def _distinct(values: np.ndarray) -> np.ndarray:
    """Distinct values by bit pattern (so -0.0 and 0.0 differ, as in the size order)."""
    return np.unique(values.view(np.int64)).view(np.float64)


def _replace(value: float, by: float):
    bits = np.float64(value).view(np.int64)
    return lambda i, x, spec: np.where(x.view(np.int64) == bits, by, x)


# The most complex distinct values a round tries: a case of 64 samples holds thousands, and each tried value costs
# a pass over every input; the shrinker's next round takes the next ones (a gradient case stalled 14 minutes here).
VALUES_A_ROUND = 256


class SimplifyValues:
    """Input values toward 0, +-1 and powers of two, with fewer significant bits and fewer distinct values.

    Each distinct value (most complex first) tries constants and its neighbours, then bisects the
    number of significant bits, then its exponent toward 0, then the fewest set bits for its length.
    """

    name = "values"

    def candidates(self, case: Case) -> Candidates:
        current = case
        for bits in (1, 2, 3):
            candidate = smaller(map_inputs(current, lambda i, x, spec, b=bits: round_significand(x, b)), current)
            if candidate is not None and (yield candidate):
                current = candidate
                break
        distinct = _distinct(input_values(current))
        order = sorted(distinct.tolist(), key=lambda v: (-int(value_cost(np.array([v]))[0]), str(v)))[:VALUES_A_ROUND]
        present = set(distinct.view(np.int64).tolist())
        for v in order:
            if int(np.float64(v).view(np.int64)) in present:
                simpler = yield from self._simplify(current, v)
                if simpler is not current:  # values changed: what is present is read again
                    current, present = simpler, set(_distinct(input_values(simpler)).view(np.int64).tolist())

    def _simplify(self, current: Case, v: float) -> Generator[Case, bool, Case]:
        def attempt(c: Case, old: float, new: float) -> Case | None:
            return smaller(map_inputs(c, _replace(old, new)), c) if new != old or math.copysign(1, new) != math.copysign(1, old) else None

        for new in self._constants(v, _distinct(input_values(current))):
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                return candidate
        if not math.isfinite(v) or v == 0:
            return current
        lo, hi = 1, _sig_bits(v)  # bisect: fewest significant bits that keep the finding
        while lo < hi:
            mid = (lo + hi) // 2
            new = float(round_significand(v, mid))
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                current, v, hi = candidate, new, mid
            else:
                lo = mid + 1
        exp = math.frexp(v)[1] - 1
        lo, hi = 0, abs(exp)  # bisect: exponent toward 0, same significand
        while lo < hi:
            mid = (lo + hi) // 2
            new = math.ldexp(v, int(math.copysign(mid, exp)) - exp)
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                current, v, hi = candidate, new, mid
            else:
                lo = mid + 1
        bits = _sig_bits(v)
        if bits > 2:  # as long, fewest bits set: 1.00...01 x 2^e
            exp = math.frexp(v)[1] - 1
            candidate = attempt(current, v, math.copysign(math.ldexp(1.0 + 2.0 ** (1 - bits), exp), v))
            if candidate is not None and (yield candidate):
                current = candidate
        return current

    @staticmethod
    def _constants(v: float, present: np.ndarray) -> list[float]:
        out = [0.0, math.copysign(1.0, v), -math.copysign(1.0, v)]
        if math.isfinite(v) and v != 0:
            exp = math.floor(math.log2(abs(v)))
            out += [math.copysign(2.0**exp, v), math.copysign(2.0 ** (exp + 1), v), abs(v)]
        bits = np.float64(v).view(np.int64)
        others = [float(u) for u in present if np.float64(u).view(np.int64) != bits]
        if others:
            out.append(others[int(np.argmin(value_cost(np.array(others))))])
            below = [u for u in others if u < v]
            above = [u for u in others if u > v]
            out += ([max(below)] if below else []) + ([min(above)] if above else [])
        return [u for u in dict.fromkeys(out) if not math.isnan(u)]
