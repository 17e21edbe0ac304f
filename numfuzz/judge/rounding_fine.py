"""The culprit op of a float64 program evaluated finer than float64 (`program.fine`), for its rounding error
(`judge.rounding_error`): the exact values and the moved inputs' values, where the fine reference answers.

In float64 the op's own float64 reference rounds as much as the values it judges, and a move of a fraction of an
input's ULP is lost when the moved input is stored in float64. The derivatives stay float64's: first order needs no
more."""

from __future__ import annotations

from typing import Callable

import numpy as np

from numfuzz.program.fine import fine_outputs, is_fine
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import lower

FineFn = Callable[..., "np.ndarray | None"]


def fine_reference(alone: Graph, out: int) -> FineFn | None:
    """A float64 program's op evaluated finer than float64, output `out` flat; None for any other op. Called with the
    inputs (float64 arrays) and optionally their moves (kept exactly); None where the fine numbers cannot answer.

    A 5-term sum that dropped an addend's last bits (0.25 ULP of each term explains it) found no move in float64, and
    neither did an erfinv 557 ULP off at condition 1.8e3 (the exact erfinv of an input 0.42 ULP away)."""
    if not is_fine(alone):
        return None
    source = lower(alone, reference=True)

    def evaluate(xs: list[np.ndarray], moves: list[np.ndarray] | None = None) -> np.ndarray | None:
        found = fine_outputs(source, xs, [], moves)
        return None if found is None else found[out].reshape(-1)

    return evaluate


def finer_pointwise(fine: FineFn, flat: list[np.ndarray], exact: np.ndarray, moved: Callable) -> tuple[np.ndarray, Callable]:
    """A pointwise op's exact values, and its value at moved inputs (`moved`: float64's, given the moves), from the
    fine reference where it answers. Each element has its own copy of every input (`flat`, one array each), so the op
    runs on just the elements wanted: at moved inputs, only those that moved. An element with a zero input keeps
    float64's values: the fine numbers have no -0, where atan2 and copysign tell the signs apart (`at_other_zero`
    chose the sign float64's exact value has)."""
    plain = np.all([x != 0 for x in flat], axis=0) if flat else np.ones(len(exact), bool)
    exact = _where_answered(fine, flat, None, plain, exact)

    def finer_moved(deltas: list[np.ndarray]) -> np.ndarray:
        stepped = plain & np.any([np.asarray(d) != 0 for d in deltas], axis=0)
        return _where_answered(fine, flat, deltas, stepped, moved(deltas))

    return exact, finer_moved


def _where_answered(fine: FineFn, flat: list[np.ndarray], deltas: list[np.ndarray] | None, where: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values` with the fine reference's value at the elements `where` (moved by `deltas`), where it gives a number."""
    idx = np.flatnonzero(where)
    if idx.size == 0:
        return values
    found = fine([x[idx] for x in flat], None if deltas is None else [np.asarray(d).reshape(-1)[idx] for d in deltas])
    if found is None or found.size != idx.size:
        return values
    answered = idx[~np.isnan(found)]
    values = np.array(values, dtype=np.float64)  # a copy: float64's own values stay as they were
    values[answered] = found[~np.isnan(found)]
    return values
