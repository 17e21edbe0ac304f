"""What the analysis of a finding established, as typed facts: the input of the verdict rules (`judge.rules`).

An `Analysis` is stored in a case as `result.analysis` (JSON, with `version`). It says where the
difference starts (the culprit), why (the cause and its evidence), and each measurement a rule
reads: the rounding-error record at the culprit (`judge.rounding_error`, re-judged against any
bounds file), whether the difference is only amplified (the cause `ill_conditioned`), the rest-of-program and reorder probes of
a non-finite result, and the partings of a position-dependent one. Facts never depend on the
bounds: the rules apply them, so a case judged live and one loaded from disk get one verdict.

Version 1 (numfuzz before the rules) stored a plain dict: `backward_error` for the record, the
cause `amplified` (now `ill_conditioned`, `cause.FORMER_NAMES`), the evidence keys `nonfinite_rest` and `reordered`, and a `position_rounding`
cause whose partings were only words. `Analysis.from_json` reads both.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from numfuzz.judge.cause import ILL_CONDITIONED, POSITION_PARTING, current_name
from numfuzz.judge.rounding_record import RoundingRecord

VERSION = 2
# The rules' version: the facts they read, measured as this numfuzz measures them. A stored outcome says which version
# judged it (`Outcome.rules_version`; 0: written before numfuzz said); where it is older than a rule's `since`, an absent
# fact may be one that was not measured then, and the rule says what it lacks (`judge.rules.undecided`). A rule that
# comes to read a new fact, or one measured anew, raises it and sets its own `since` to it.
# 2: a gradient's largest absolute errors, an overflow eager makes too, a domain's edge, the condition at the culprit
# 3: a lost non-finite class that the exact rest of the program gives (`class_rest`), for the verdict nonfinite_class
# 4: an integer output's dropped cast or decision boundary (`amplified` of an exact_mismatch), and float64 programs'
#    rounding error measured on the fine reference
# 5: float64 programs' pointwise ops measured on the fine reference too, and ops autograd cannot differentiate measured
#    by forward differences (before: "not measured")
# 6: a gradient that parts from eager's only on its culprit's kinks, a subgradient (`subgradient`)
# 7: an integer output's decision boundary with a NaN of the other sign counted as a difference, and floats non-finite on
#    every side in one class no finding (`amplified` of a signbit of a NaN)
# 8: a timeout in the target where eager's own run took more than a fifth of the limit is invalid
#    (`targets.boundary.too_slow_to_judge`): a stored timeout runs again to measure eager's time
# 9: an integer output's dropped cast counts a bf16/fp16 intermediate's own rounding (isinf of an fp16 i0 kept in fp32)
# 10: no low_precision cause where the culprit's narrow inputs, read unrounded, explain the target's values
#    (`domain_edge.explained_by_unrounded_inputs`)
# 11: a gradient finding that the program's gradients with a narrowing cast taken as a no-op explain is a dropped cast
#    (`cast_dropped.cast_dropped_in_backward`), not the backward of the op it flows through
# 12: a gradient's non-finite class lost only where the non-finite inputs do not reach it (`nan_unreached`)
# 13: an output where eager has no correct bit, its largest error as large as the output's largest value (`eager_noise`)
RULES_VERSION = 13


@dataclass(frozen=True)
class Culprit:
    """The op where the difference starts."""

    node: int  # position in graph.nodes
    op: str
    dtype: str
    verdict: str  # at that op, locally: less_accurate, nonfinite or nonfinite_class
    located: str  # how it was found: "probe", "single op", "cutting", "cutting the backward" or "fallback (why)"

    def to_json(self) -> dict:
        return {"node": self.node, "op": self.op, "dtype": self.dtype, "verdict": self.verdict, "located": self.located}

    @staticmethod
    def from_json(data: dict) -> Culprit:
        return Culprit(
            int(data.get("node", 0)), str(data.get("op", "")), str(data.get("dtype", "")), str(data.get("verdict", "")), str(data.get("located", ""))
        )


@dataclass(frozen=True)
class Parting:
    """A position-dependent result: the first op at which two positions part, and the target's error there against the op on its own inputs."""

    op: str
    dtype: str
    device: str
    local_ulp: float
    eager_ulp: float | None = None  # eager's error there, against the op on eager's own inputs (None: not measured)

    def sentence(self, allowed: float | None = None) -> str:
        """The parting in words; with the bound in force there (`allowed`, in ULP), why that is rounding."""
        said = (
            f"the two positions first part at `{self.op}` ({self.dtype}), whose compiled values are within {self.local_ulp:.3g} ULP "
            "of the op applied exactly to their own inputs"
        )
        return said if allowed is None else f"{said} (its bound: {allowed:g}); the ops after it amplify the difference"

    def to_json(self) -> dict:
        data = {"op": self.op, "dtype": self.dtype, "device": self.device, "local_ulp": json_number(self.local_ulp)}
        if self.eager_ulp is not None:
            data["eager_ulp"] = json_number(self.eager_ulp)
        return data

    @staticmethod
    def from_json(data: dict) -> Parting:
        eager = data.get("eager_ulp")
        return Parting(
            str(data["op"]), str(data["dtype"]), str(data.get("device", "cpu")), float(data["local_ulp"]), float(eager) if eager is not None else None
        )


def json_number(x: float) -> float | str:
    """JSON has no inf/nan: spelled as strings float() reads back."""
    x = float(x)
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


@dataclass
class Analysis:
    """The facts of one analysed outcome; every field but `output` may be absent."""

    output: int  # the flagged output (past the outputs: an input's gradient)
    cause: str = ""
    evidence: list[str] = field(default_factory=list)
    op: str = ""  # what the finding is filed under: the culprit op, or the cast a dropped cast names
    dtype: str = ""
    culprit: Culprit | None = None
    gradient_of: int | None = None  # a gradient finding: the input whose gradient it is
    rounding_error: RoundingRecord | None = None  # the culprit's record (`judge.rounding_error` measures it)
    nonfinite_rest: str | None = None  # evidence: the exact rest of the program makes the non-finite elements
    reordered: str | None = None  # evidence: eager makes them too from the reduction's terms in another order
    partings: list[Parting] | None = None  # a position-dependent outcome: where its positions part
    # a gradient finding where no op's backward alone is less accurate on the target: the bits its gradient loses
    fused_backward_bits: float | None = None
    # a gradient finding: the largest absolute error of the flagged gradient, the target's and eager's
    gradient_max_abs: tuple[float, float] | None = None
    # the flagged output's largest absolute error of eager's and its largest |reference| (`judge.eager_noise`)
    eager_noise: tuple[float, float] | None = None
    # evidence: a non-finite value where eager's same output overflows too, the target's only where eager's is near the overflow
    overflows_too: str | None = None
    # evidence: a non-finite value the culprit op gives exactly at inputs within their rounding: the edge of its domain
    domain_edge: str | None = None
    # evidence: a non-finite class lost (nonfinite_class) that the exact rest of the program gives from the culprit's value
    class_rest: str | None = None
    # evidence: a gradient that parts from eager's only on kinks of its culprit, between the one-sided derivatives (`judge.kinks`)
    subgradient: str | None = None
    # evidence: a gradient's non-finite class lost only where the non-finite inputs do not reach it (`judge.nan_unreached`)
    nan_unreached: str | None = None

    @property
    def ill_conditioned(self) -> bool:
        """The target parts from eager only where it is as accurate or more: an op downstream amplifies that."""
        return self.cause == ILL_CONDITIONED.name

    def to_json(self) -> dict:
        data: dict[str, Any] = {
            "version": VERSION,
            "output": self.output,
            "cause": self.cause,
            "evidence": list(self.evidence),
            "op": self.op,
            "dtype": self.dtype,
        }
        data["culprit"] = self.culprit.to_json() if self.culprit is not None else None
        if self.rounding_error is not None:
            data["rounding_error"] = self.rounding_error.to_json()
        for name in (
            "gradient_of",
            "nonfinite_rest",
            "reordered",
            "fused_backward_bits",
            "overflows_too",
            "domain_edge",
            "class_rest",
            "subgradient",
            "nan_unreached",
        ):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        for pair in ("gradient_max_abs", "eager_noise"):
            if getattr(self, pair) is not None:
                data[pair] = [json_number(x) for x in getattr(self, pair)]
        if self.partings is not None:
            data["partings"] = [p.to_json() for p in self.partings]
        return data

    @staticmethod
    def from_json(data: dict) -> Analysis:
        """A stored analysis of any version; raises ValueError where it cannot be read."""
        if not isinstance(data, dict):
            raise ValueError("an analysis is a JSON object")
        try:
            culprit = data.get("culprit")
            record = data.get("rounding_error", data.get("backward_error"))  # version 1: `backward_error`
            cause = current_name(str(data.get("cause", ""))) or (ILL_CONDITIONED.name if data.get("amplified") else "")
            evidence = [str(line) for line in data.get("evidence", [])]
            partings = data.get("partings")
            found = Analysis(
                output=int(data.get("output", 0)),
                cause=cause,
                evidence=evidence,
                op=str(data.get("op", "")),
                dtype=str(data.get("dtype", "")),
                culprit=Culprit.from_json(culprit) if isinstance(culprit, dict) else None,
                gradient_of=int(data["gradient_of"]) if data.get("gradient_of") is not None else None,
                rounding_error=RoundingRecord.from_json(record) if isinstance(record, dict) else None,
                nonfinite_rest=_text(data.get("nonfinite_rest")),
                reordered=_text(data.get("reordered")),
                partings=[Parting.from_json(p) for p in partings] if isinstance(partings, list) else None,
                fused_backward_bits=float(data["fused_backward_bits"]) if data.get("fused_backward_bits") is not None else None,
                gradient_max_abs=_pair(data.get("gradient_max_abs")),
                eager_noise=_pair(data.get("eager_noise")),
                overflows_too=_text(data.get("overflows_too")),
                domain_edge=_text(data.get("domain_edge")),
                class_rest=_text(data.get("class_rest")),
                subgradient=_text(data.get("subgradient")),
                nan_unreached=_text(data.get("nan_unreached")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"unreadable analysis: {exc}") from None
        if int(data.get("version", 1)) < 2:
            _upgrade(found)
        return found


def _pair(value: object) -> tuple[float, float] | None:
    return (float(value[0]), float(value[1])) if isinstance(value, list) and len(value) == 2 else None


def _text(value: object) -> str | None:
    return str(value) if isinstance(value, str) and value else None


# How version 1 worded a parting: "the two positions first part at `tanh` (fp32), whose compiled values are within 0.4 ULP ..."
_PARTING = re.compile(r"first part at `([^`]+)` \(([a-z0-9]+)\), whose compiled values are within ([0-9.eE+-]+|inf) ULP")


def _upgrade(facts: Analysis) -> None:
    """A version-1 analysis as version 2 has it: partings as data, and the record's words out of the evidence."""
    if facts.cause == "position_rounding":  # version 1 said its partings in words only, under the cause's old name
        facts.cause = POSITION_PARTING.name
        facts.partings = [Parting(op, dtype, "cpu", float(ulps)) for line in facts.evidence for op, dtype, ulps in _PARTING.findall(line)] or None
    # version 1 appended the record in words (under the bounds of its day); listings now say it under theirs
    if facts.rounding_error is not None and facts.evidence and facts.evidence[-1].startswith(("at ", "backward error at ")):
        facts.evidence = facts.evidence[:-1]
    for why in (facts.nonfinite_rest, facts.reordered):  # and the probes' evidence, which the rules now say
        if why is not None and why in facts.evidence:
            facts.evidence.remove(why)
