"""The rounding-error record in words: one line for evidence, replay, the report and the issue text.

The words judge the record against the bounds in force (`rounding_record.allowance_of`,
`chosen_side`), as the verdict rules do, so that what `corpus` prints agrees with its status.
"""

from __future__ import annotations

import math

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.rounding_record import RoundingRecord, Side, allowance_of, chosen_side, within


def _num(x: float | str | None) -> float:
    return float(x) if x is not None else math.nan


def _ulps(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.3g}"


def describe(record: RoundingRecord, bounds: Bounds) -> str:
    """One line for evidence, replay, the report and the issue text: the rounding error against the bound `bounds` give."""
    if record.error:
        return f"rounding error at `{record.op}`: {record.error}"
    try:
        return _describe(record, bounds) + _other_gradients(record, bounds)
    except (KeyError, TypeError, ValueError, IndexError):  # a record with parts missing: say so, never fail a listing
        return f"rounding error at `{record.op}`: recorded in a form this numfuzz cannot read in full"


def _other_gradients(record: RoundingRecord, bounds: Bounds) -> str:
    """A backward's other input gradients that keep it a finding (`record_within` reads them all): the words say so too."""
    beyond = [f"; {_describe(other, bounds)}" for other in record.also if other.target is None or not within(other.target, allowance_of(other, bounds))]
    unmeasured = record.stored.get("unmeasured")
    if unmeasured:
        beyond.append(f"; the gradient of its input {', '.join(str(k) for k in unmeasured)} is not measured, so not within its bound")
    return "".join(beyond)


def _describe(record: RoundingRecord, bounds: Bounds) -> str:
    try:
        bound = allowance_of(record, bounds).to_json()
        target, eager_side, rounded = chosen_side(record, bounds)
    except (KeyError, TypeError, ValueError):  # a record from another numfuzz: its own words
        bound = record.stored["bound"]
        target, eager_side, rounded = Side.from_json(record.stored["target"]), Side.from_json(record.stored["eager"]), False
    dtype = record.bound_dtype or record.dtype
    documented = f"{_ulps(float(bound['documented_ulp']))} ULP ({bound['source']}{'; uncertain' if bound.get('uncertain') else ''})"
    if dtype != "fp32":  # stated for fp32; a narrow op is computed in fp32 and rounded once
        documented = (
            f"{_ulps(float(bound['documented_ulp']))} fp32 ULP, so in {dtype} {_ulps(float(bound['output_ulp']))} ULP at the output "
            f"or {_ulps(float(bound['input_ulp']))} ULP of input move ({bound['source']})"
        )
    if record.unrounded_inputs:
        documented += (
            "; its inputs are values the program made in a narrow dtype, which a fused kernel may read before their rounding: half an ULP more of input move"
        )
    if record.n > 1 and bound.get("grows"):
        documented += f", grown for {record.n} elements"
    eager = eager_side.max_needed_ulp
    out_ulp, in_ulp = float(bound["output_ulp"]), float(bound["input_ulp"])
    if target.front is None:
        raise ValueError("no front stored")
    front = target.front
    beyond = [n for f, n in front if f > out_ulp and n > in_ulp]
    what = f"the program from `{record.op}` on" if record.suffix else f"`{record.op}`"
    if record.backward:
        what = f"`{record.op}`'s backward (the gradient of its input {record.gradient_of})"
    worst = target.worst or ({},)
    at_worst = _num(worst[0].get("condition"))
    condition = f"condition {_ulps(at_worst)} at its worst element, " if math.isfinite(at_worst) or math.isinf(at_worst) else ""
    rounded = rounded or record.stored.get("scalars") == "rounded to fp32"  # the second: a record of numfuzz before the rules
    scalars = ", its float attributes rounded to fp32 as ATen's vectorised kernels take them" if rounded else ""
    stored_target = record.stored.get("target")
    other_zero = stored_target.get("signed_zero", 0) if isinstance(stored_target, dict) else 0
    # +0 and -0 are one number: the exact value at the other one is no input move, where the op is discontinuous
    signed = f", {other_zero} elements taken at a zero input of the other sign, where the op is discontinuous" if other_zero else ""
    where = f"at {what} ({record.dtype}, {condition}up to {_ulps(target.max_condition)}{scalars}{signed})"
    if bound.get("unit") == "input":  # a formula x - g(x), bounded by g's error at g(x), which is at most |x|
        if target.max_input_unit_ulp is None:
            return f"{where}: the record, older than its bound ({documented}, in ULPs of the input), has no error in those units: replay the case to measure it"
        eager_in = eager_side.max_input_unit_ulp
        return (
            f"{where}: the compiled result is {_ulps(target.max_input_unit_ulp)} ULP of its input off float64 at the op "
            f"(eager's {_ulps(eager_in if eager_in is not None else math.nan)}); the documented bound is {documented}, in ULPs of the input"
        )
    if beyond and math.isinf(min(beyond)):
        return (
            f"{where}: numfuzz finds no input move that explains the compiled result (first order gives none, or the op at the "
            f"moved inputs misses it); the documented bound is {documented}; eager's needs {_ulps(eager)} ULP"
        )
    if beyond:
        return (
            f"{where}: the compiled result is not the exact result of any input within {_ulps(min(beyond))} ULP; "
            f"the documented bound is {documented}; eager's needs {_ulps(eager)} ULP"
        )
    excused = [n for f, n in front if f > out_ulp]
    if not excused:
        return f"{where}: the compiled result is within {_ulps(target.max_forward_ulp)} ULP of float64 at the op; the documented bound is {documented}"
    return (
        f"{where}: the compiled value is the exact result of inputs within {_ulps(max(excused))} ULP; "
        f"the documented bound is {documented}; eager's needs {_ulps(eager)} ULP"
    )
