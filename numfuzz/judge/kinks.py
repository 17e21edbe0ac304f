"""A gradient taken where the op has none: an input on a kink (clamp at a bound, relu or abs at 0, max at a tie).

There the op's left and right derivatives differ, and autograd returns one of them, or a value between: a
subgradient, chosen by the backward formula. No choice is more accurate than another, and no maintainer takes a
different one as a bug. Where both sides agree and eager's formula still gives another value (clamp at x = min = max
is constant in x, derivative 0 from both sides; eager's formula gives 1, Thunder's 0), the target's is the op's own.
`subgradient_evidence` asks, of the culprit's backward cut out and run alone (`gradient_analysis.locate_backward`),
whether every element where the target's gradient parts from eager's has the target's value between the op's
one-sided derivatives there, each measured in float64 by a step to either side.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.compiled import flat64
from numfuzz.judge.rounding_partials import as_float64
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import compile_source, lower

PARTED = 2.0**-7  # relative difference from eager's gradient past any rounding's: a choice of derivative, or a bug
MEASURED = 32  # elements measured at most (two float64 runs of the op each)
STEP = 2.0**-24  # the step to either side, relative to the input's size: the loss's own rounding (a sum of many terms) small against its change


def subgradient_evidence(graph: Graph, rows: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], runs) -> str | None:
    """Why the target's gradient is a subgradient at every element it parts from eager's; None where one is not.
    `graph`: the culprit alone, `rows` and `upstream`: its inputs and its output's gradient per sample, `runs`: its judged runs."""
    if runs is None:
        return None
    reference = compile_source(lower(graph, reference=True))
    outputs, seen = len(graph.outputs), []
    for s, (eager, target) in enumerate(zip(runs.eager, runs.target)):
        loss = None  # the sample's loss, made once where an element parts
        for k in range(len(rows[s])):
            e, t = flat64([eager[outputs + k]]), flat64([target[outputs + k]])
            if e.size != t.size or not e.size:
                continue
            with np.errstate(invalid="ignore"):
                parted = np.flatnonzero(np.abs(t - e) > PARTED * np.maximum(np.maximum(np.abs(e), np.abs(t)), 1e-30))
            for i in parted[: MEASURED - len(seen)]:
                loss = _Loss(reference, rows[s], upstream[s]) if loss is None else loss
                sides = loss.one_sided(k, int(i))
                if sides is None or not _between(t[i], *sides):
                    return None
                seen.append((float(t[i]), float(e[i]), sides))
            if len(seen) >= MEASURED:
                break
    if not seen:
        return None
    t, e, (left, right) = seen[0]
    where = "where it has no derivative" if abs(right - left) > 1e-3 * (abs(left) + abs(right)) else "where its derivative is the same from both sides"
    return (
        f"at each of the {len(seen)} element(s) measured where the target's gradient parts from eager's, the op's input sits {where} "
        f"(from one side {left:.3g}, from the other {right:.3g}): the target's {t:.3g} lies between them, where eager's formula gives {e:.3g}"
    )


class _Loss:
    """sum(upstream * op(x)) of one sample in float64, its value at the sample's own inputs computed once."""

    def __init__(self, reference, row: list[torch.Tensor], upstream: list[torch.Tensor]):
        self.reference, self.xs, self.gs = reference, [as_float64(x) for x in row], [as_float64(g) for g in upstream]
        self.middle = self._value(self.xs)

    def _value(self, xs: list[torch.Tensor]) -> float:
        with torch.no_grad():
            out = self.reference(*xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return float(sum((g * o.to(torch.float64)).sum() for g, o in zip(self.gs, outs)))

    def at(self, k: int, i: int, value: float) -> float:
        """The loss with x[k]'s element i set to `value`."""
        moved = [x.clone() for x in self.xs]
        moved[k].reshape(-1)[i] = value
        return self._value(moved)

    def one_sided(self, k: int, i: int) -> tuple[float, float] | None:
        """The derivatives in x[k]'s element i from the left and from the right (equal where the op is smooth there:
        then only a target that gives that derivative, where eager's formula gives another, is no bug)."""
        if not self.xs[k].is_floating_point():
            return None
        base = self.xs[k].reshape(-1)[i].item()
        step = STEP * max(abs(base), 1.0)
        right, left = (self.at(k, i, base + step) - self.middle) / step, (self.middle - self.at(k, i, base - step)) / step
        return (left, right) if np.isfinite(left) and np.isfinite(right) else None


def _between(value: float, left: float, right: float) -> bool:
    low, high = min(left, right), max(left, right)
    slack = 1e-4 * (abs(low) + abs(high)) + 1e-12  # the steps' own error, in a loss summing many terms
    return bool(np.isfinite(value)) and low - slack <= value <= high + slack
