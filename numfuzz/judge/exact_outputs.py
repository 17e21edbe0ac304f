"""Integer and bool outputs, judged exactly: the target's values must be eager's, bit for bit.

An integer program (a database op over integers, a comparison, an argmax) has no rounding to
measure: eager's values are exact, and any element the target gives otherwise is wrong. So an
integer or bool output is compared with eager's, not with the float64 reference (which, computed by
the same integer kernels, is eager's too), element by element, in the output's own dtype; float64
would round int64 values past 2**53. Its dtype and shape are checked before (`execute.unlike_runs`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from numfuzz.judge.chunks import Flat, as_flat

Values = Flat | list[torch.Tensor] | np.ndarray


@dataclass(frozen=True)
class ExactDifference:
    """How an integer or bool output differs from eager's: elements compared, how many differ, by how much at most, and
    the first that does (the oracle records it as an `OutputErrors`)."""

    elements: int
    differ: int
    largest: float
    first: int


def exact_difference(eager: Values, target: Values) -> ExactDifference:
    """An integer or bool output's difference from eager's, element by element in its own dtype."""
    e, t = _exact(eager), _exact(target)
    differ = e != t
    worse = int(differ.sum())
    # as Python ints: float64 would call int64 values near 2**63 one apart equal, and int64 would overflow
    largest = float(np.abs(e[differ].astype(object) - t[differ].astype(object)).max()) if worse else 0.0
    first = int(np.flatnonzero(differ)[0]) if worse else 0
    return ExactDifference(int(e.size), worse, largest, first)


def _exact(values: Values) -> np.ndarray:
    """The values over every sample, flat, in their own integer dtype (bool as 0 and 1)."""
    parts = as_flat(values).parts
    arrays = [p.detach().to("cpu").reshape(-1).to(torch.int64).numpy() if isinstance(p, torch.Tensor) else np.asarray(p).reshape(-1) for p in parts]
    return np.concatenate(arrays) if arrays else np.zeros(0, np.int64)


def exact_words(name: str, errors) -> str:
    """A mismatched output's words, named by the op that made it (a fingerprint keeps them): `db.sum: values differ from eager's at 3 of 64 elements`."""
    return f"{name}: values differ from eager's at {errors.worse} of {errors.elements} elements (by up to {errors.target_max_abs:.6g})"
