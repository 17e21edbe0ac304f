"""One side's rounding-error measurements at the culprit (`judge.rounding_error`), as its record summarises them.

The elements are measured a slice at a time (`judge.chunks`); a `Side` keeps of them only what the
summary reads: how many, the maxima as Python's `max` takes them in order, the Pareto front of
(forward error, move needed), and the worst elements. Each is what it would be over every element at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from numfuzz.judge.facts import json_number

WORST = 8  # elements measured one backward each (non-pointwise ops), and elements shown


@dataclass
class Element:
    sample: int
    element: int  # flat index within the sample's output
    value: float  # this side's value
    exact: float  # the op in float64 on this side's inputs
    forward_ulp: float
    condition: float
    needed_ulp: float
    per_input: list[float]

    def to_json(self) -> dict:
        return {k: v if isinstance(v, int) else [json_number(x) for x in v] if isinstance(v, list) else json_number(v) for k, v in vars(self).items()}


@dataclass
class Side:
    """One side's measurements, added a slice at a time: every element measured is counted, and kept only as far as
    the summary reads it (maxima as Python's `max` takes them in order, the Pareto front, the worst elements)."""

    measured: int = 0
    maxima: dict[str, float] = field(default_factory=dict)  # forward, needed, condition; input_unit for a one-input pointwise op
    front: tuple[np.ndarray, np.ndarray] = field(default_factory=lambda: (np.zeros(0), np.zeros(0)))  # (forward, needed), NaN as -1
    elements: list[Element] = field(default_factory=list)
    signed_zero: int = 0  # elements measured at a zero input of the other sign (`at_other_zero`)

    def add(self, forward: np.ndarray, needed: np.ndarray, condition: np.ndarray, input_unit: np.ndarray | None = None) -> None:
        """Measured elements, in order: each side's forward error, the input move needed, the condition (and the error in input ULPs)."""
        self.measured += forward.size
        for name, x in (("forward", forward), ("needed", needed), ("condition", condition), ("input_unit", input_unit)):
            if x is not None and x.size:
                self.maxima[name] = _python_max(self.maxima.get(name), x)
        if forward.size:  # the front of the points so far is the front of the last front and the new points
            self.front = _front(np.concatenate([self.front[0], nan_low(forward)]), np.concatenate([self.front[1], nan_low(needed)]))

    def keep_worst(self, found: list[Element]) -> None:
        self.elements = _worst(self.elements + found)

    def summary(self) -> dict:
        unit = self.maxima.get("input_unit")
        return {
            "max_forward_ulp": json_number(self.maxima.get("forward", 0.0)),
            "max_needed_ulp": json_number(self.maxima.get("needed", 0.0)),
            "max_condition": json_number(self.maxima.get("condition", 0.0)),
            "front": [[json_number(f), json_number(n)] for f, n in zip(*self.front)],
            "worst": [e.to_json() for e in _worst(self.elements)],
            **({"max_input_unit_ulp": json_number(unit)} if unit is not None else {}),
            **({"signed_zero": self.signed_zero} if self.signed_zero else {}),
        }


def _worst(elements: list[Element]) -> list[Element]:
    """The WORST elements by the move they need, then their error (stable: the first of equals first)."""
    return sorted(elements, key=lambda e: (key_nan_low(e.needed_ulp), key_nan_low(e.forward_ulp)), reverse=True)[:WORST]


def _python_max(so_far: float | None, x: np.ndarray) -> float:
    """What Python's `max` gives over the values so far and then `x`: a NaN first stays (nothing compares above it), a NaN later is passed over."""
    if so_far is None:
        so_far = float(x[0])
    if math.isnan(so_far):
        return so_far
    x = x[~np.isnan(x)]
    return max(so_far, float(x.max())) if x.size else so_far


def key_nan_low(x: float) -> float:
    return -1.0 if math.isnan(x) else x


def nan_low(x: np.ndarray) -> np.ndarray:
    """NaN sorts below everything; inf stays inf (np.nan_to_num would make it the largest float)."""
    return np.where(np.isnan(x), -1.0, x)


def pareto_front(forward: list[float], needed: list[float]) -> list[list[float | str]]:
    """The points no other point exceeds in both: an element beyond a bound on both counts lies under one of them.

    Stored whole (fronts are short: errors and moves mostly grow together), so a record judged again says what the live judgement said."""
    f, n = _front(nan_low(np.asarray(forward, float)), nan_low(np.asarray(needed, float)))
    return [[json_number(a), json_number(b)] for a, b in zip(f, n)]


def _front(f: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`pareto_front`'s points, forward descending (NaN already low)."""
    if f.size == 0:
        return f, n
    order = np.lexsort((-n, -f))  # forward descending, then needed descending
    f, n = f[order], n[order]
    best_before = np.concatenate([[-np.inf], np.maximum.accumulate(n)[:-1]])
    keep = np.flatnonzero(n > best_before)
    return f[keep], n[keep]
