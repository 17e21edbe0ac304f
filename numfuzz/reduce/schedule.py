"""The minimiser's schedule, as data: pass names in the order they run, and the passes by name.

The shrinker runs the schedule round after round until no pass makes progress. To add a pass,
write it (see `numfuzz.reduce.shrinker.ShrinkPass` for the rules it must keep), add it to
PASSES and put its name where it belongs in SCHEDULE_NAMES: cheap, big cuts first.
"""

from __future__ import annotations

from numfuzz.reduce.passes.autocast import NoAutocast
from numfuzz.reduce.passes.compile_mode import CompileMode
from numfuzz.reduce.passes.graph import BypassNodes, CutNodes, DropOutputs, MergeInputs
from numfuzz.reduce.passes.inputs import FocusWorst, ReduceSamples, ShrinkShapes, UnifyDtypes
from numfuzz.reduce.passes.layouts import PlainLayouts
from numfuzz.reduce.passes.scalars import LiteralScalars, SimplerScalars
from numfuzz.reduce.passes.values import SimplifyValues
from numfuzz.reduce.shrinker import ShrinkPass

PASSES: dict[str, type] = {
    cls.name: cls
    for cls in (
        CompileMode,
        DropOutputs,
        CutNodes,
        BypassNodes,
        MergeInputs,
        ReduceSamples,
        FocusWorst,
        ShrinkShapes,
        UnifyDtypes,
        PlainLayouts,
        LiteralScalars,
        SimplerScalars,
        NoAutocast,
        SimplifyValues,
    )
}

SCHEDULE_NAMES: tuple[str, ...] = (
    "compile-mode",  # the default options and static sizes, where the finding shows with them: cheaper compiles from here on
    "drop-outputs",  # one output: everything off its cone goes
    "cut-nodes",  # the culprit alone, its producers replaced by their eager values
    "bypass-nodes",
    "merge-inputs",
    "samples",  # the sample holding the worst element
    "focus-worst",  # that element's value everywhere
    "shapes",
    "unify-dtypes",
    "plain-layouts",  # strided inputs made contiguous
    "literal-scalars",  # scalar arguments written into the source, one call where two are not needed
    "simpler-scalars",  # a margin of 1.7 toward 1, an eps of 1e-40 toward 0.5
    "no-autocast",  # nodes out of their torch.autocast region
    "values",  # toward 0, +-1 and powers of two
)


# the passes that take a program down to its one op: all a refusal's coverage row needs (`Verdict.is_refusal`)
TO_ONE_OP: tuple[str, ...] = ("drop-outputs", "cut-nodes", "bypass-nodes")


def build_schedule(names: tuple[str, ...] = SCHEDULE_NAMES) -> tuple[ShrinkPass, ...]:
    """Pass objects for `names`; an unknown name is a ValueError that lists the known ones."""
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        raise ValueError(f"unknown shrink passes {unknown}; known: {', '.join(PASSES)}")
    return tuple(PASSES[n]() for n in names)


SCHEDULE: tuple[ShrinkPass, ...] = build_schedule()
