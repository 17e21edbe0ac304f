"""A culprit's rounding-error record judged against bounds: THE rule (`record_within`), the same live and stored.

`judge.rounding_error` measures the record; this module reads it under whatever bounds are in
force (the shipped ones, a user's `--bounds`), without running anything, so that a stored case is
judged again as it was live.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from numfuzz.judge.bounds import Allowance, Bounds


def _num(x: float | str | None) -> float:
    return float(x) if x is not None else math.nan


@dataclass(frozen=True)
class Side:
    """One side's measurement at the culprit (the target's or eager's), as `rounding_error` summarises it."""

    max_forward_ulp: float  # the largest error at the op's output, in ULPs of its dtype
    max_needed_ulp: float  # the largest input move that explains a value
    max_condition: float
    front: tuple[tuple[float, float], ...] | None  # (error, move) points no other point exceeds in both; None: not stored
    worst: tuple[dict, ...] = ()  # the worst elements, for the words
    max_input_unit_ulp: float | None = None  # for a bound in ULPs of the input (`Bound.unit`); None: not measured

    @staticmethod
    def from_json(data: dict) -> Side:
        unit = data.get("max_input_unit_ulp")
        return Side(
            _num(data.get("max_forward_ulp")),  # a record written before one of them was measured: NaN
            _num(data.get("max_needed_ulp")),
            _num(data.get("max_condition")),
            tuple((_num(f), _num(n)) for f, n in data["front"]) if "front" in data else None,
            tuple(w for w in data.get("worst", []) if isinstance(w, dict)),
            _num(unit) if unit is not None else None,
        )


def _side(data: object) -> Side | None:
    """A stored side, or None where it is missing or unreadable (each side apart: the rule reads the target's only)."""
    try:
        return Side.from_json(data) if isinstance(data, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


@dataclass(frozen=True)
class RoundingRecord:
    """The rounding-error record of a culprit (or of its backward): what each side's value at the op needs, measured.

    Stored in a case as the JSON `rounding_error` measured it (`to_json` gives it back as read); a record
    that cannot be judged (not measured, a gradient left unmeasured, written by another numfuzz) says so in
    `judgeable`, and `record_within` gives None for it."""

    op: str
    dtype: str
    device: str = "cpu"
    n: int = 1  # the elements the op combines per output element (bounds that grow with it)
    target: Side | None = None
    eager: Side | None = None
    fp32_rounded: tuple[Side, Side] | None = None  # (target, eager) with the op's float attributes rounded to fp32
    backward: bool = False  # the op's backward, judged against `Bounds.backward_allowance`
    gradient_of: int = 0
    also: tuple[RoundingRecord, ...] = ()  # a backward's other input gradients: each must be within its bound too
    suffix: bool = False  # the fused program from the op on, taken as one op
    suffix_ops: tuple[tuple[str, int], ...] | None = None  # its ops and lengths: the loosest bound of them
    bound_dtype: str = ""  # the suffix's output dtype
    unrounded_inputs: bool = False  # its inputs are narrow values a fused kernel may read before rounding them
    error: str = ""  # why it was not measured
    judgeable: bool = True  # False: a part the rule needs is missing or unreadable
    stored: dict = field(default_factory=dict, compare=False, repr=False)  # the JSON as read

    @staticmethod
    def from_json(data: dict) -> RoundingRecord:
        """A stored record; one missing a part the rule reads is kept, not judgeable."""
        base = RoundingRecord(str(data.get("op", "")), str(data.get("dtype", "")), stored=data, error=str(data.get("error", "")))
        try:
            rounded = data.get("fp32_scalars")
            ops = data.get("suffix_ops")
            parent = {k: v for k, v in data.items() if k not in ("also", "target", "eager", "fp32_scalars")}
            return replace(
                base,
                device=str(data.get("device", "cpu")),
                n=int(data.get("n", 1)),
                target=_side(data.get("target")),
                eager=_side(data.get("eager")),
                fp32_rounded=(Side.from_json(rounded["target"]), Side.from_json(rounded["eager"])) if isinstance(rounded, dict) else None,
                backward=bool(data.get("backward")),
                gradient_of=int(data.get("gradient_of", 0)),
                also=tuple(RoundingRecord.from_json({**parent, **o}) for o in data.get("also", [])),
                suffix=bool(data.get("suffix")),
                suffix_ops=tuple((str(op), int(k)) for op, k in ops) if isinstance(ops, list) else None,
                bound_dtype=str(data.get("bound_dtype", "")),
                unrounded_inputs=bool(data.get("unrounded_inputs")),
                judgeable="error" not in data and not data.get("unmeasured") and isinstance(data.get("target"), dict) and "front" in data["target"],
            )
        except (KeyError, TypeError, ValueError, IndexError):
            return replace(base, judgeable=False)

    def to_json(self) -> dict:
        return self.stored


def within(measured: Side, allowance: Allowance) -> bool:
    """Every element of one side's summary within the bound at its output, or explained by inputs within it; for a
    bound in ULPs of the input (`Bound.unit`), every element's error at the op in ULPs of its input within it."""
    if allowance.bound.unit == "input":
        if measured.max_input_unit_ulp is None:
            raise ValueError("not measured in ULPs of the input")  # the record cannot say
        return measured.max_input_unit_ulp <= allowance.output_ulp
    if measured.front is None:
        raise ValueError("no front stored")  # the record cannot say
    return all(f <= allowance.output_ulp or n <= allowance.input_ulp for f, n in measured.front)


# A compiler that fuses the op with the ops making its bf16/fp16 inputs may read them before
# they are rounded (cast elision, intended by default: Inductor keeps fused intermediates in
# fp32): the op is then judged as if its inputs could be off by half an ULP of their dtype.
UNROUNDED_INPUT_ULP = 0.5


def allowance_of(record: RoundingRecord, bounds: Bounds) -> Allowance:
    """What `bounds` allow the op a record measured: the op's, its backward's, or the loosest of a cut suffix's ops."""
    if record.suffix_ops is not None:  # the culprit's fused rest, taken as one op
        return bounds.loosest([list(o) for o in record.suffix_ops], record.bound_dtype, record.device)
    measure = bounds.backward_allowance if record.backward else bounds.allowance
    allowance = measure(record.op, record.dtype, record.device, record.n)
    if record.unrounded_inputs:  # a fused kernel may read them before their rounding to bf16/fp16
        return replace(allowance, input_ulp=allowance.input_ulp + UNROUNDED_INPUT_ULP)
    return allowance


def chosen_side(record: RoundingRecord, bounds: Bounds) -> tuple[Side, Side, bool]:
    """The measurement `bounds` judge a record by, (target, eager, whether its float attributes are rounded to fp32):
    the op as written, unless only the op with its float attributes rounded to fp32 is within the bound."""
    if record.target is None or record.eager is None:
        raise ValueError("a side is not measured")
    if record.fp32_rounded is not None:
        allowance = allowance_of(record, bounds)
        if not within(record.target, allowance) and within(record.fp32_rounded[0], allowance):
            return (*record.fp32_rounded, True)
    return record.target, record.eager, False


def record_within(record: RoundingRecord | None, bounds: Bounds) -> bool | None:
    """THE rule: is a recorded culprit value within its bound under `bounds`? None where the record cannot say
    (not measured, or written by another numfuzz)."""
    if record is None or not record.judgeable or record.target is None:
        return None
    try:
        allowance = allowance_of(record, bounds)
        sides = [record.target] + ([record.fp32_rounded[0]] if record.fp32_rounded is not None else [])
        return any(within(side, allowance) for side in sides) and all(o.target is not None and within(o.target, allowance_of(o, bounds)) for o in record.also)
    except (KeyError, TypeError, ValueError):
        return None
