"""Is a non-finite output an overflow the program makes anyway, whose boundary the target's rounding moved?

A program whose values pass the largest finite of their dtype overflows in eager too: eager's output
is inf at some elements, and the target's at some more. Where the target's extra non-finite elements
are those where eager's value at the culprit lies within one binade of that largest finite (one
rounding or one order of accumulation away from overflowing), the target has not made a finite
result non-finite: it drew the program's own overflow boundary one rounding further. Measured from
the runs and the culprit view, no compile; the rule (`judge.rules.OverflowsToo`) reads it.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.evidence import Evidence
from numfuzz.program.dtypes import check_dtype, is_integer

NEAR_OVERFLOW = 0.5  # eager's |value| at least this share of the dtype's largest finite: one binade below the overflow


def overflow_boundary_evidence(ev: Evidence) -> str | None:
    """The evidence where the target's non-finite elements are only the program's overflow moved by a rounding; else None."""
    c, runs = ev.culprit, ev.outcome.runs
    if c is None or runs is None or is_integer(c.dtype) or not ev.inputs_seen():
        return None
    eager_out = runs.flat("eager", ev.output)
    eager_overflows = int((~np.isfinite(eager_out)).sum())
    if not eager_overflows:
        return None  # eager's output is finite everywhere: the target's non-finite values are its own
    _, target_values = ev.side("target")
    _, eager_values = ev.side("eager")
    largest = check_dtype(c.dtype).max_value
    moved = 0
    for got, eager in zip(target_values, eager_values):
        got, eager = got.detach().cpu().double(), eager.detach().cpu().double()
        only_target = ~torch.isfinite(got) & torch.isfinite(eager)
        if not bool(only_target.any()):
            continue
        if not bool((eager[only_target].abs() >= NEAR_OVERFLOW * largest).all()):
            return None  # a value eager keeps far from the overflow: the target's own doing
        moved += int(only_target.sum())
    if not moved:
        return None
    return (
        f"eager's output overflows too ({eager_overflows} non-finite elements); where only the target's `{c.op}` ({c.dtype}) is "
        f"non-finite ({moved} elements), eager's value there is within a binade of the largest finite ({largest:.4g}): the "
        "program's overflow, its boundary moved by one rounding"
    )
