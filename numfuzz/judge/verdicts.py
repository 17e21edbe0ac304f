"""What one run of one case can say about a target. Verdicts are values, never exceptions."""

from __future__ import annotations

import math
from enum import Enum


class Verdict(str, Enum):
    LESS_ACCURATE = "less_accurate"  # further from float64 than eager: the main finding
    NONFINITE = "nonfinite"  # inf/nan where eager and the reference are finite
    # a finite value, or another class of non-finite, where eager and the reference agree on NaN, +inf or -inf (judge.nonfinite_class)
    NONFINITE_CLASS = "nonfinite_class"
    POSITION_DEPENDENT = "position_dependent"  # the same values at two positions give different results (judge.position)
    CRASH_COMPILE = "crash_compile"  # raised while compiling (the first call)
    CRASH_RUN = "crash_run"  # raised on a later call
    # the target says, in its own code, that it does not support an op, an argument or a mode (judge.refusal): recorded and
    # grouped per op and argument as a coverage list, never a new bug
    UNSUPPORTED = "unsupported"
    MISMATCH = "mismatch"  # output shape, dtype or count differs from eager
    UNCHECKED = "unchecked"  # eager raises on the program and the target computes it: a check it lacks (judge.error_parity)
    EXACT_MISMATCH = "exact_mismatch"  # an integer or bool output's values differ from eager's, which are exact (judge.exact_outputs)
    METADATA = "metadata"  # an output's strides, aliasing or viewability differ from eager's (judge.metadata)
    STATE = "state"  # a call leaves PyTorch's global modes (grad mode, autocast, default dtype) unlike eager's call (model.state)
    NONDETERMINISTIC = "nondeterministic"  # two runs on the same inputs differ
    SEGFAULT = "segfault"  # the worker died of a signal such as SIGSEGV
    ABORT = "abort"  # the worker died of SIGABRT
    TIMEOUT = "timeout"  # the case ran past its time limit
    OOM = "oom"  # the worker ran out of memory
    EQUAL = "equal"
    MORE_ACCURATE = "more_accurate"  # benign: typically fused fp32 intermediates
    # benign: the output is worse only because a difference that is not worse where it starts
    # (a more accurate op, say) is amplified by an ill-conditioned op downstream
    AMPLIFIED = "amplified"
    # benign: less accurate than eager, yet at the op where it starts the value is within that op's
    # documented bound, at its output or as the exact result of inputs moved within it (judge.rounding_error)
    WITHIN_ROUNDING = "within_rounding"
    # benign: less accurate than eager, yet eager's own value at the op where it starts is far outside that op's
    # bound as well: the formula is unstable whoever computes it (judge.rules.EagerFailsToo)
    EAGER_UNSTABLE = "eager_unstable"
    # benign: a gradient that parts from eager's only where the culprit op has no derivative (an input on a kink: clamp
    # at a bound, relu at 0), and is between its one-sided derivatives there, as eager's: a subgradient (judge.kinks)
    SUBGRADIENT = "subgradient"
    INVALID = "invalid"  # the program itself is bad: eager raised, or no finite reference

    @property
    def is_finding(self) -> bool:
        benign = (Verdict.AMPLIFIED, Verdict.WITHIN_ROUNDING, Verdict.EAGER_UNSTABLE, Verdict.SUBGRADIENT)
        return self not in (Verdict.EQUAL, Verdict.MORE_ACCURATE, *benign, Verdict.INVALID)

    @property
    def is_refusal(self) -> bool:
        """The target's own refusal: a finding the corpus lists apart, as unsupported, and minimises to one op only."""
        return self is Verdict.UNSUPPORTED

    @property
    def is_accuracy(self) -> bool:
        """A finding about the values (less accurate, non-finite, or a non-finite class lost): analysed, located, judged by the rules."""
        return self in (Verdict.LESS_ACCURATE, Verdict.NONFINITE, Verdict.NONFINITE_CLASS)

    @property
    def is_clean(self) -> bool:
        """As accurate as eager or more: what the position check, the search and the second size look past."""
        return self in (Verdict.EQUAL, Verdict.MORE_ACCURATE)

    @property
    def is_listed_benign(self) -> bool:
        """Benign, yet kept in a campaign's corpus for `corpus --all` to list: less accurate than eager for a reason a rule names."""
        return self in (Verdict.WITHIN_ROUNDING, Verdict.EAGER_UNSTABLE, Verdict.SUBGRADIENT)

    @property
    def is_kept(self) -> bool:
        """Stored in a campaign's corpus: a finding, or a benign verdict that `corpus --all` lists."""
        return self.is_finding or self.is_listed_benign

    @property
    def kills_process(self) -> bool:
        """Seen only from outside the process that ran the case: rerun such cases isolated."""
        return self in (Verdict.SEGFAULT, Verdict.ABORT, Verdict.TIMEOUT, Verdict.OOM)


ACCURACY_SYMPTOMS = tuple(v.value for v in Verdict if v.is_accuracy)  # the symptoms (stored verdict names) that are about the values
LOST_SYMPTOMS = tuple(v.value for v in Verdict if v.kills_process)  # a lost worker's: its finding names no op until minimised


def parse_verdict(text: str) -> Verdict:
    try:
        return Verdict(text)
    except ValueError:
        raise ValueError(f"unknown verdict {text!r}") from None


def severity_text(bits: float | None, symptom: str = "") -> str:
    """The one wording of a finding's severity: bits lost against eager, non-finite, or (for the symptom
    `nonfinite_class`, whose every bit is lost too) eager's NaN or inf lost."""
    if bits is None:
        return "-"
    if math.isinf(bits):
        return "NaN/inf lost" if symptom == Verdict.NONFINITE_CLASS.value else "non-finite"
    return f"{bits:.1f} bits"
