"""Eager's noise at an output: its largest absolute error against the output's largest |reference| value.

Where eager's largest error is as large as the largest value the output should have, eager has no
correct bit at any element: the output is rounding noise (the gradients upstream of a normalisation
whose loss barely depends on its input, the terms of a cancellation). A compiled output further off
says nothing a maintainer can act on; the rule `eager_no_correct_bits` names it.
"""

from __future__ import annotations

from collections.abc import Sequence

from numfuzz.judge.oracle import OutputErrors


def eager_noise(outputs: Sequence[OutputErrors], flagged: int) -> tuple[float, float] | None:
    """The flagged output's (eager's largest absolute error, largest |reference|) from its judged errors (stored ones
    too); None where it was not judged, or was recorded before the output's scale was kept."""
    errors = next((o for o in outputs if o.index == flagged and o.elements), None)
    if errors is None or errors.reference_max_abs is None:
        return None
    return float(errors.eager_max_abs), float(errors.reference_max_abs)
