"""The cause classes: each one's name, when it is a finding whatever the bound, its group title and its words.

A cause is said once, here: its entry in `judge.cause_tests` says how it is tested (every cause has one), the rules
(`judge.rules`) read whether it is kept, the signature and group key name a cause that is one
root cause whatever its op, and the issue text says its phrase. Stored cases hold the name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Kept(Enum):
    """Whether a cause is a finding whatever the op's rounding bound."""

    NO = ""
    ALWAYS = "always"  # the program asked for something the compiled code does not give
    NARROW = "narrow"  # so in bf16/fp16, where eager computes in fp32 and rounds once


@dataclass(frozen=True)
class Cause:
    name: str
    phrase: str  # the issue text's "Likely cause"
    kept: Kept = Kept.NO
    root_title: str = ""  # a root cause whatever the op it shows at: one group per target, so titled

    def kept_in(self, narrow: bool) -> bool:
        """A finding whatever the bound, for a culprit in a dtype narrower than fp32 (`narrow`) or not."""
        return self.kept is Kept.ALWAYS or (self.kept is Kept.NARROW and narrow)


CAST_DROPPED = Cause("cast_dropped", "an explicit cast the program asks for is dropped", Kept.ALWAYS, "explicit cast dropped")
STRIDED_INPUT = Cause(
    "strided_input",
    "a strided input (permuted, stepped, expanded or offset) is mishandled: the same values laid out contiguously are fine",
    root_title="strided input mishandled",
)
EMULATED_ROUNDING = Cause(
    "emulated_rounding",
    "emulate_precision_casts rounds a value to the low dtype where eager keeps it in fp32",
    Kept.ALWAYS,
    "emulate_precision_casts rounds a value eager keeps in fp32",
)
NONFINITE_INTERMEDIATE = Cause("nonfinite_intermediate", "a value turns non-finite inside the compiled code where eager's is finite", Kept.ALWAYS)
NONFINITE_DROPPED = Cause(
    "nonfinite_dropped",
    "the compiled code gives a number, or another non-finite class, where the op gives NaN or inf, as eager does",
    Kept.ALWAYS,
)
LOW_PRECISION = Cause("low_precision", "a lower-precision intermediate or accumulator", Kept.NARROW)
CANCELLATION = Cause("cancellation", "cancellation: a small result computed from larger terms loses its relative accuracy")
KERNEL_ACCURACY = Cause("kernel_accuracy", "kernel accuracy: a few ULP, no pattern")
UNEXPLAINED = Cause("unexplained", "unexplained: no cause test holds")
STALE_SCALAR = Cause("stale_scalar", "a Python scalar argument's first value is reused when the compiled program is called with another", Kept.ALWAYS)
BACKWARD = Cause("backward", "the op's backward: its gradient is less accurate than eager's")  # a gradient finding, whatever the forward
# its outcome is the verdict `amplified` (judge.rules); the cause is the mechanism
ILL_CONDITIONED = Cause("ill_conditioned", "no op loses accuracy: an op downstream amplifies a difference that is as accurate as eager's or more")
# the metadata oracle's (judge.metadata): a verdict of its own, grouped by the op and the kind of difference its detail names
OUTPUT_METADATA = Cause(
    "output_metadata",
    "an output is laid out unlike eager's (its strides, the memory it shares, or whether it can be viewed), which torch.compile promises to keep",
    Kept.ALWAYS,
)
POSITION_PARTING = Cause("position_parting", "the same values give different results at different positions (batch or tile boundaries)")

CAUSES = {
    c.name: c
    for c in (
        CAST_DROPPED,
        STRIDED_INPUT,
        EMULATED_ROUNDING,
        NONFINITE_INTERMEDIATE,
        NONFINITE_DROPPED,
        LOW_PRECISION,
        CANCELLATION,
        KERNEL_ACCURACY,
        UNEXPLAINED,
        STALE_SCALAR,
        BACKWARD,
        ILL_CONDITIONED,
        POSITION_PARTING,
        OUTPUT_METADATA,
    )
}


# names stored cases may hold for a cause renamed since (version 1's `position_rounding` is read by `facts._upgrade`)
FORMER_NAMES = {"amplified": ILL_CONDITIONED.name}


def current_name(name: str) -> str:
    """A stored cause name as this version names that cause."""
    return FORMER_NAMES.get(name, name)


def cause_named(name: str) -> Cause | None:
    """The cause a stored name means; None for a name this version does not know (an old case's)."""
    return CAUSES.get(current_name(name))


def root_title(name: str) -> str:
    """The group title of a cause that is one root cause whatever its op; "" for the others."""
    cause = cause_named(name)
    return cause.root_title if cause is not None else ""


def kept_whatever_the_bound(name: str, narrow: bool) -> bool:
    """`name` is a cause that is a finding whatever the bound (in a dtype narrower than fp32, for `Kept.NARROW`)."""
    cause = cause_named(name)
    return cause is not None and cause.kept_in(narrow)


@dataclass
class Diagnosis:
    """A cause found on a case, with the evidence that says so (`judge.causes`)."""

    cause: str
    evidence: list[str] = field(default_factory=list)
    node: int | None = None  # the op the cause names: a dropped cast names the cast
    op: str = ""
    dtype: str = ""

    def to_json(self) -> dict:
        return {"cause": self.cause, "evidence": self.evidence, "node": self.node, "op": self.op, "dtype": self.dtype}
