"""A verdict rule: which oracle verdicts it judges, which facts it reads, what it gives where it holds (`judge.rules`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from numfuzz.judge.bounds import FP32_MANTISSA, Bounds
from numfuzz.judge.facts import Analysis
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype

ACCURACY = tuple(v for v in Verdict if v.is_accuracy)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rule: str = ""  # the rule that gave it; "" where the oracle's verdict stands
    why: str = ""  # the rule's evidence


class Rule:
    """A named rule: for the oracle verdicts it `judges`, where `holds` gives evidence, the verdict is `gives`."""

    name: ClassVar[str]
    judges: ClassVar[tuple[Verdict, ...]]
    gives: ClassVar[Verdict | None]  # None: the oracle's verdict stands, and no later rule is asked
    reads: ClassVar[tuple[str, ...]]  # the facts it reads (fields and properties of `Analysis`)
    bounded: ClassVar[bool] = False  # depends on the bounds
    since: ClassVar[int] = 1  # the rules' version (`facts.RULES_VERSION`) from which a stored outcome has what it reads, as it reads it

    def holds(self, facts: Analysis, bounds: Bounds) -> str | None:
        raise NotImplementedError

    def unmeasured(self, facts: Analysis, bounds: Bounds) -> str | None:
        """In an outcome stored before `since`: the fact this rule reads that is not there as it reads it (None: all are)."""
        return None


def record_unmeasured(facts: Analysis) -> str | None:
    """The culprit's rounding-error record, where an older numfuzz stored it without the target's side as the rule reads
    it. A record that is absent, or says why it was not measured, is as today's analysis leaves some: not stale."""
    record = facts.rounding_error
    if record is None or record.error or record.judgeable or record.stored.get("unmeasured"):
        return None
    return "the rounding-error record at the culprit"


def narrow(dtype: object) -> bool:
    """A dtype narrower than fp32 (bf16, fp16); unknown counts as narrow, so that what it keeps stays a finding."""
    try:
        return check_dtype(str(dtype)).mantissa_bits < FP32_MANTISSA
    except ValueError:  # no dtype recorded: keep it a finding
        return True


def number(x: object, nan_as: float = math.nan) -> float:
    """A stored number (a JSON string for inf and nan), `nan_as` where it is NaN or unreadable."""
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return nan_as
    return nan_as if math.isnan(value) else value
