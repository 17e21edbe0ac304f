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

    A 5-term sum that dropped an addend's last bits (0.25 ULP of each term explains it) found no move in float64."""
    if not is_fine(alone):
        return None
    source = lower(alone, reference=True)

    def evaluate(xs: list[np.ndarray], moves: list[np.ndarray] | None = None) -> np.ndarray | None:
        found = fine_outputs(source, xs, [], moves)
        return None if found is None else found[out].reshape(-1)

    return evaluate
