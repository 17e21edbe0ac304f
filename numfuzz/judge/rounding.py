"""THE within_rounding rule: when a less accurate result is only rounding within the documented bound.

A less accurate finding is `within_rounding` (benign) when, at the op where it starts, every
element measured is within that op's documented bound (`numfuzz.judge.bounds`): its error at
the op is at most the bound in ULPs of the output, or it is the exact result of the op's inputs
moved by at most the bound in ULPs of each input (`numfuzz.judge.backward_error`). Whatever the
bound, these stay findings: a non-finite value where eager and float64 are finite (the verdict
`nonfinite`; unless the exact rest of the program makes it from a culprit value within its bound,
`judge.nonfinite_rest`), the causes in KEPT, and `low_precision` in bf16/fp16 (an accumulator narrower than
eager's fp32 one, or one more rounding in the narrow dtype). A gradient finding is judged the
same way at its culprit's backward (`judge.gradient_error`, `Bounds.backward_allowance`). An fp32 `low_precision` finding (an
fp32 sum accumulated in fp32, in another order than eager's) is judged by its bound like any other.

The rule is applied where the case runs (`judge.analysis`) and again, from the stored record,
where a corpus is listed (`corpus.grouping`), so that `corpus`, `report` and a user's `--bounds`
file judge alike without running anything.
"""

from __future__ import annotations

from numfuzz.judge.backward_error import within
from numfuzz.judge.bounds import FP32_MANTISSA, Bounds
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype

# Causes that are a finding whatever the bound: the program asked for a cast that the compiled
# code does not give, or a value turned non-finite, whatever the rounding of the rest.
KEPT = ("cast_dropped", "emulated_rounding", "nonfinite_intermediate")
# In bf16/fp16 also this one: eager accumulates and computes in fp32 and rounds once, so an
# accumulator in the narrow dtype, or one more rounding in it, is what the program did not ask for.
KEPT_NARROW = ("low_precision",)
# The analysis key of a non-finite finding judged within rounding because the exact rest of the
# program makes the same non-finite elements (judge.nonfinite_rest): judged again, it is
# `nonfinite` where its culprit is no longer within the bound.
NONFINITE_REST = "nonfinite_rest"
# The analysis key of a non-finite sum or product that eager makes too from its terms in another
# order (judge.reduction_order): no bound is involved, so it stays within rounding when judged again.
REORDERED = "reordered"

JUDGED = (Verdict.LESS_ACCURATE, Verdict.WITHIN_ROUNDING)


def within_rounding(analysis: dict | None, bounds: Bounds) -> bool | None:
    """Is the stored analysis's culprit value within its bound? None where there is nothing to judge by."""
    if not isinstance(analysis, dict) or analysis.get("cause") in KEPT:
        return None
    if analysis.get("cause") in KEPT_NARROW and _narrow(analysis.get("dtype")):
        return None
    record = analysis.get("backward_error")
    if not isinstance(record, dict) or "error" in record or not isinstance(record.get("target"), dict):
        return None
    try:
        device = str(record.get("device", "cpu"))
        if isinstance(record.get("suffix_ops"), list):  # the culprit's fused rest, taken as one op
            allowance = bounds.loosest(record["suffix_ops"], str(record["bound_dtype"]), device)
        else:
            measure = bounds.backward_allowance if record.get("backward") else bounds.allowance
            allowance = measure(str(record["op"]), str(record["dtype"]), device, int(record.get("n", 1)))
        return within(record["target"]["front"], allowance)
    except (KeyError, TypeError, ValueError):  # a record from another numfuzz: judge as recorded
        return None


def _narrow(dtype: object) -> bool:
    try:
        return check_dtype(str(dtype)).mantissa_bits < FP32_MANTISSA
    except ValueError:  # no dtype recorded: keep it a finding
        return True


def rejudged(verdict: Verdict, analysis: dict | None, bounds: Bounds) -> Verdict:
    """A recorded less_accurate or within_rounding verdict judged again against `bounds`; any other as recorded."""
    if verdict not in JUDGED or (isinstance(analysis, dict) and analysis.get(REORDERED)):
        return verdict
    found = within_rounding(analysis, bounds)
    if found is None:
        return verdict
    if found:
        return Verdict.WITHIN_ROUNDING
    return Verdict.NONFINITE if isinstance(analysis, dict) and analysis.get(NONFINITE_REST) else Verdict.LESS_ACCURATE
