"""Every cause with its test: the one list that says how each cause is tested, in what order, at what cost and where.

A cause (`judge.cause`) exists only with its entry here (a unit test holds every cause to one). An
entry's steps say at which stage of the analysis (`judge.analysis`) its test runs; the analysis
runs the stages in the order of `Stage`, and within a stage the steps in the order of
`CAUSE_TESTS`: the first test that holds names the cause.

* oracle           -- output_metadata: the metadata check judges the outputs (`judge.execute`); its
                      verdict is a finding of its own, which no analysis follows.
* second call      -- stale_scalar: the second call of a dynamic compile was nearer eager with the
                      first call's scalar (`judge.stale_scalar`); nothing is located.
* position         -- position_parting: where the same values at two positions first part (`judge.position_analysis`).
* gradient         -- cast_dropped in an input's gradient (float64 only: its casts' gradients taken as no-ops), then
                      backward: the op whose backward a gradient finding starts at (`judge.gradient_analysis`).
* before locating  -- cast_dropped on the flagged output (float64 only): exposing values could undo the elision it sees.
* locating         -- ill_conditioned: the probe shows no op worse where the difference starts (the verdict `amplified`).
* after locating   -- at the culprit, in order: cast_dropped at a located cast, cast_dropped upstream of the
                      culprit (its probed value against the program up to it with a cast as a no-op), strided_input,
                      emulated_rounding, nonfinite_intermediate, nonfinite_dropped, low_precision, cancellation,
                      kernel_accuracy (`judge.causes` says each one's claim); unexplained when none holds.

The first four stages each decide the whole facts (an `Analysis`) of the outcomes they apply to and
pass the others by (None); the value stages give a `Diagnosis` for a value finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable, Union

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cast_dropped import cast_dropped, cast_dropped_in_backward, cast_dropped_located
from numfuzz.judge.cause import (
    BACKWARD,
    CANCELLATION,
    CAST_DROPPED,
    EMULATED_ROUNDING,
    ILL_CONDITIONED,
    KERNEL_ACCURACY,
    LOW_PRECISION,
    NONFINITE_DROPPED,
    NONFINITE_INTERMEDIATE,
    OUTPUT_METADATA,
    POSITION_PARTING,
    STALE_SCALAR,
    STRIDED_INPUT,
    UNEXPLAINED,
    Cause,
    Diagnosis,
)
from numfuzz.judge.causes import (
    cancellation,
    emulated_rounding,
    ill_conditioned,
    kernel_accuracy,
    low_precision,
    nonfinite_intermediate,
    strided_input,
    unexplained,
)
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.facts import Analysis
from numfuzz.judge.gradient_analysis import backward
from numfuzz.judge.metadata import metadata_differences
from numfuzz.judge.nonfinite_dropped import nonfinite_dropped
from numfuzz.judge.position_analysis import position_parting
from numfuzz.judge.stale_scalar import stale_scalar


class Stage(Enum):
    """Where in the judging of an outcome a cause's test runs, in the order they run."""

    ORACLE = "oracle"
    SECOND_CALL = "second call"
    POSITION = "position"
    GRADIENT = "gradient"
    BEFORE_LOCATING = "before locating"
    LOCATING = "locating"
    AFTER_LOCATING = "after locating"

    @property
    def decides_the_facts(self) -> bool:
        """Its tests take the evidence and the bounds and give the whole `Analysis` (None: the outcome is not theirs)."""
        return self in (Stage.SECOND_CALL, Stage.POSITION, Stage.GRADIENT)


FactsTest = Callable[[Evidence, Bounds], Union[Analysis, None]]  # second call, position, gradient
ValueTest = Callable[[Evidence], Union[Diagnosis, None]]  # before locating, locating, after locating
OracleCheck = Callable[..., list[str]]  # the oracle's: what differs, which `judge.execute` asks with the outputs


@dataclass(frozen=True)
class Step:
    """One test of a cause: the stage it runs at, what it costs, and the test."""

    stage: Stage
    cost: str
    test: FactsTest | ValueTest | OracleCheck
    needs_culprit: bool = False
    # reads the values at the culprit (its inputs, as the probe or cutting saw them): not for a fallback culprit
    reads_values: bool = False


@dataclass(frozen=True)
class CauseTest:
    """How one cause is tested: its steps, one per stage it is tested at (a dropped cast is tested before locating and after)."""

    cause: Cause
    steps: tuple[Step, ...]


def _one(cause: Cause, stage: Stage, cost: str, test: Callable, needs_culprit: bool = False, reads_values: bool = False) -> CauseTest:
    return CauseTest(cause, (Step(stage, cost, test, needs_culprit, reads_values),))


CAUSE_TESTS = (
    _one(OUTPUT_METADATA, Stage.ORACLE, "none: compared with every output", metadata_differences),
    _one(STALE_SCALAR, Stage.SECOND_CALL, "none: the second call has run", stale_scalar),
    _one(POSITION_PARTING, Stage.POSITION, "one compile (the probe)", position_parting),
    CauseTest(
        CAST_DROPPED,
        (
            Step(Stage.GRADIENT, "float64 only: the program's gradients with each narrowing cast taken as a no-op", cast_dropped_in_backward),
            Step(Stage.BEFORE_LOCATING, "float64 only: the program with each narrowing cast taken as a no-op", cast_dropped),
            Step(
                Stage.AFTER_LOCATING,
                "float64 only: where cutting located a narrowing cast, none; else the program up to the culprit with each narrowing cast taken as a no-op",
                cast_dropped_located,
                needs_culprit=True,
            ),
        ),
    ),
    _one(BACKWARD, Stage.GRADIENT, "one compile per op on the flagged gradient's path", backward),
    _one(ILL_CONDITIONED, Stage.LOCATING, "none: the probe that locates", ill_conditioned),
    _one(STRIDED_INPUT, Stage.AFTER_LOCATING, "one compile, where an input is strided", strided_input),
    _one(EMULATED_ROUNDING, Stage.AFTER_LOCATING, "one compile, where the target turns the option on", emulated_rounding, needs_culprit=True),
    _one(NONFINITE_INTERMEDIATE, Stage.AFTER_LOCATING, "none", nonfinite_intermediate, needs_culprit=True, reads_values=True),
    _one(NONFINITE_DROPPED, Stage.AFTER_LOCATING, "float64 only", nonfinite_dropped, needs_culprit=True, reads_values=True),
    _one(LOW_PRECISION, Stage.AFTER_LOCATING, "float64 only", low_precision, needs_culprit=True, reads_values=True),
    _one(CANCELLATION, Stage.AFTER_LOCATING, "one or two compiles (the sweeps)", cancellation, needs_culprit=True, reads_values=True),
    _one(KERNEL_ACCURACY, Stage.AFTER_LOCATING, "none", kernel_accuracy, needs_culprit=True, reads_values=True),
    _one(UNEXPLAINED, Stage.AFTER_LOCATING, "none: it always holds", unexplained),
)


def steps_at(stage: Stage) -> list[Step]:
    """The steps that run at `stage`, in the order of CAUSE_TESTS."""
    return [step for one in CAUSE_TESTS for step in one.steps if step.stage is stage]


def decided_facts(ev: Evidence, bounds: Bounds) -> Analysis | None:
    """The facts the first stage that decides them gives (second call, position, gradient); None where none applies."""
    for stage in Stage:
        if stage.decides_the_facts:
            for step in steps_at(stage):
                facts = step.test(ev, bounds)
                if facts is not None:
                    return facts
    return None


def first_holding(ev: Evidence, stage: Stage) -> Diagnosis | None:
    """The first cause whose test at a value stage holds; None where none does."""
    for step in steps_at(stage):
        if (step.needs_culprit and ev.culprit is None) or (step.reads_values and not ev.inputs_seen()):
            continue
        found = step.test(ev)
        if found is not None:
            return found
    return None


def diagnose(ev: Evidence) -> Diagnosis:
    """The cause at a located culprit: the first test after locating that holds (`unexplained` always does)."""
    found = first_holding(ev, Stage.AFTER_LOCATING)
    assert found is not None, "unexplained always holds"
    return found
