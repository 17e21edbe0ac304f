"""A dropped cast whose unrounded value only overflows at the store: `x.to(fp16)` of 70000 is inf in eager, so
`where(isfinite(t), t, y)` takes y; a compiler that keeps the fp32 value takes t, and storing 70000 in fp16 gives inf.
The program with the cast taken as a no-op explains it once its value is stored in the output's format."""

from __future__ import annotations

import torch

from numfuzz.judge.cast_dropped import cast_dropped
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome, Runs
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

GRAPH = Graph((TensorSpec((5,), "fp32"), TensorSpec((5,), "fp16")), (Node.make("cast", [0], dtype="fp16"), Node.make("isfinite_where", [2, 1])), (3,))
X = torch.tensor([70000.0, 65519.0, 65520.0, 1e5, 3.0])
Y = torch.full((5,), 7.0, dtype=torch.float16)


def _evidence(target: list[float]) -> Evidence:
    as_written = torch.tensor([7.0, 65504.0, 7.0, 7.0, 3.0])
    runs = Runs(eager=[(as_written.half(),)], reference=[(as_written.double(),)], target=[(torch.tensor(target).half(),)])
    return Evidence(GRAPH, [[X, Y]], resolve("eager"), "cpu", Outcome(Verdict.NONFINITE, runs=runs), 0)


def test_an_elided_cast_that_overflows_at_the_store_is_a_dropped_cast():
    found = cast_dropped(_evidence([float("inf"), 65504.0, float("inf"), float("inf"), 3.0]))
    assert found is not None and found.cause == "cast_dropped" and found.op == "cast"


def test_an_infinity_the_program_without_the_cast_does_not_make_is_no_dropped_cast():
    assert cast_dropped(_evidence([float("inf"), 65504.0, 7.0, 7.0, float("inf")])) is None  # 3.0 made inf: something else
