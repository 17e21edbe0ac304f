"""Eager's noise at an output: its largest absolute error against the output's largest |reference| value.

Where eager's largest error is as large as the largest value the output should have, eager has no
correct bit at any element: the output is rounding noise (the gradients upstream of a normalisation
whose loss barely depends on its input, the terms of a cancellation). A compiled output further off
says nothing a maintainer can act on; the rule `eager_no_correct_bits` names it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from numfuzz.judge.oracle import OutputErrors


def eager_noise(outputs: Sequence[OutputErrors], flagged: int) -> tuple[float, float] | None:
    """The flagged output's (eager's largest absolute error, largest |reference|) from its judged errors (stored ones
    too); None where it was not judged.

    A record from before the output's scale was kept still bounds it: at the element of eager's largest error the
    reference is that error over its relative error there, so the scale is at least `eager_max_abs / eager_max_rel`.
    Where eager's largest relative error is below 1 that bound already exceeds eager's error and decides the rule
    (it cannot hold), and is given as the scale; otherwise None, and the finding is measured again."""
    errors = next((o for o in outputs if o.index == flagged and o.elements), None)
    if errors is None:
        return None
    eager = float(errors.eager_max_abs)
    if errors.reference_max_abs is not None:
        return eager, float(errors.reference_max_abs)
    relative = float(errors.eager_max_rel)
    if eager == 0.0:
        return 0.0, 0.0  # eager exact: the rule cannot hold whatever the scale
    return (eager, eager / relative) if math.isfinite(relative) and 0.0 < relative < 1.0 else None
