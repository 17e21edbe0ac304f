"""THE within_rounding rule: when a less accurate result is only rounding within the documented bound.

A less accurate finding is `within_rounding` (benign) when, at the op where it starts, every
element measured is within that op's documented bound (`numfuzz.judge.bounds`): its error at
the op is at most the bound in ULPs of the output, or it is the exact result of the op's inputs
moved by at most the bound in ULPs of each input (`numfuzz.judge.backward_error`). Whatever the
bound, these stay findings: a non-finite value where eager and float64 are finite (the verdict
`nonfinite`), and the causes in KEPT.

The rule is applied where the case runs (`judge.analysis`) and again, from the stored record,
where a corpus is listed (`corpus.grouping`), so that `corpus`, `report` and a user's `--bounds`
file judge alike without running anything.
"""

from __future__ import annotations

from numfuzz.judge.backward_error import within
from numfuzz.judge.bounds import Bounds
from numfuzz.judge.verdicts import Verdict

# Causes that are a finding whatever the bound: the program asked for a cast or an accumulator
# width that the compiled code does not give, or one more rounding in a narrow dtype (which
# eager never does: it computes in fp32 and rounds once), whatever the rounding of the rest.
KEPT = ("cast_dropped", "nonfinite_intermediate", "low_precision")
JUDGED = (Verdict.LESS_ACCURATE, Verdict.WITHIN_ROUNDING)


def within_rounding(analysis: dict | None, bounds: Bounds) -> bool | None:
    """Is the stored analysis's culprit value within its bound? None where there is nothing to judge by."""
    if not isinstance(analysis, dict) or analysis.get("cause") in KEPT:
        return None
    record = analysis.get("backward_error")
    if not isinstance(record, dict) or "error" in record or not isinstance(record.get("target"), dict):
        return None
    try:
        allowance = bounds.allowance(str(record["op"]), str(record["dtype"]), str(record.get("device", "cpu")), int(record.get("n", 1)))
        return within(record["target"]["front"], allowance)
    except (KeyError, TypeError, ValueError):  # a record from another numfuzz: judge as recorded
        return None


def rejudged(verdict: Verdict, analysis: dict | None, bounds: Bounds) -> Verdict:
    """A recorded less_accurate or within_rounding verdict judged again against `bounds`; any other as recorded."""
    if verdict not in JUDGED:
        return verdict
    found = within_rounding(analysis, bounds)
    if found is None:
        return verdict
    return Verdict.WITHIN_ROUNDING if found else Verdict.LESS_ACCURATE
