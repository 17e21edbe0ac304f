"""A culprit's rounding-error record judged against bounds: THE rule (`record_within`), the same live and stored.

`judge.rounding_error` measures the record; this module reads it under whatever bounds are in
force (the shipped ones, a user's `--bounds`), without running anything, so that a stored case is
judged again as it was live.
"""

from __future__ import annotations

import math
from dataclasses import replace

from numfuzz.judge.bounds import Allowance, Bounds


def _num(x: float | str | None) -> float:
    return float(x) if x is not None else math.nan


def within(measured: dict, allowance: Allowance) -> bool:
    """Every element of one side's summary within the bound at its output, or explained by inputs within it; for a
    bound in ULPs of the input (`Bound.unit`), every element's error at the op in ULPs of its input within it."""
    if allowance.bound.unit == "input":
        return _num(measured["max_input_unit_ulp"]) <= allowance.output_ulp  # a KeyError where not measured: the record cannot say
    return all(_num(f) <= allowance.output_ulp or _num(n) <= allowance.input_ulp for f, n in measured["front"])


# A compiler that fuses the op with the ops making its bf16/fp16 inputs may read them before
# they are rounded (cast elision, intended by default: Inductor keeps fused intermediates in
# fp32): the op is then judged as if its inputs could be off by half an ULP of their dtype.
UNROUNDED_INPUT_ULP = 0.5


def allowance_of(record: dict, bounds: Bounds) -> Allowance:
    """What `bounds` allow the op a record measured: the op's, its backward's, or the loosest of a cut suffix's ops."""
    device = str(record.get("device", "cpu"))
    if isinstance(record.get("suffix_ops"), list):  # the culprit's fused rest, taken as one op
        return bounds.loosest(record["suffix_ops"], str(record["bound_dtype"]), device)
    measure = bounds.backward_allowance if record.get("backward") else bounds.allowance
    allowance = measure(str(record["op"]), str(record["dtype"]), device, int(record.get("n", 1)))
    if record.get("unrounded_inputs"):  # a fused kernel may read them before their rounding to bf16/fp16
        return replace(allowance, input_ulp=allowance.input_ulp + UNROUNDED_INPUT_ULP)
    return allowance


def chosen_side(record: dict, bounds: Bounds) -> dict:
    """The measurement `bounds` judge a record by ({"target": ..., "eager": ...}): the op as written,
    unless only the op with its float attributes rounded to fp32 is within the bound."""
    rounded = record.get("fp32_scalars")
    if isinstance(rounded, dict):
        allowance = allowance_of(record, bounds)
        if not within(record["target"], allowance) and within(rounded["target"], allowance):
            return rounded
    return record


def record_within(record: object, bounds: Bounds) -> bool | None:
    """THE rule: is a recorded culprit value within its bound under `bounds`? None where the record cannot say
    (not measured, or written by another numfuzz)."""
    if not isinstance(record, dict) or "error" in record or record.get("unmeasured") or not isinstance(record.get("target"), dict):
        return None
    try:
        allowance = allowance_of(record, bounds)
        sides = [record["target"]]
        if isinstance(record.get("fp32_scalars"), dict):
            sides.append(record["fp32_scalars"]["target"])
        others = record.get("also", [])  # a backward's other input gradients: each must be within its bound too
        return any(within(side, allowance) for side in sides) and all(within(o["target"], allowance_of({**record, **o}, bounds)) for o in others)
    except (KeyError, TypeError, ValueError):
        return None
