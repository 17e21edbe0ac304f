"""A position-dependent result whose positions first part at an op within its bound at both is within rounding."""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.eager import Eager


class _TailCos(TorchFunctionMode):
    """cos with its last element `ulps` fp32 ULPs up, as a scalar tail with another libm might give it."""

    def __init__(self, ulps: int):
        super().__init__()
        self.ulps = ulps

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.cos:
            out = out.clone()
            for _ in range(self.ulps):
                out[..., -1] = torch.nextafter(out[..., -1], torch.tensor(float("inf")))
        return out


class TailCos(Eager):
    def __init__(self, arg: str | None):
        self.ulps, self.name = int(arg or "1"), f"tail_cos:{arg or '1'}"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with _TailCos(self.ulps):
                return fn(*args)

        return run


register("tail_cos", TailCos, "eager with the last element's cos some ULPs up (tests only)")
# fmod(x, cos(x)) near x = 20: the quotient is about 50, so one ULP of cos is about 50 ULP of the result.
FMOD_COS = Graph((TensorSpec((19,), "fp32"),), (Node.make("cos", [0]), Node.make("fmod", [0, 1])), (2,))
ROW = np.linspace(18.0, 22.0, 19)
ROW[-3:] = ROW[:3]  # the last three positions repeat the first three
X = torch.tensor(ROW, dtype=torch.float32)


def test_a_tail_within_its_bound_amplified_downstream_is_rounding():
    outcome = run_case(Case.from_tensors(FMOD_COS, [[X]], "tail_cos:1"), resolve("tail_cos:1"), "cpu")
    assert outcome.verdict is Verdict.WITHIN_ROUNDING
    assert outcome.rule == "position_within_bound" and outcome.analysis.op == "cos" and outcome.analysis.partings[0].op == "cos"
    assert "ULP apart" in outcome.detail and "first part at `cos`" in outcome.detail


def test_a_tail_beyond_its_bound_stays_position_dependent():
    outcome = run_case(Case.from_tensors(FMOD_COS, [[X]], "tail_cos:8"), resolve("tail_cos:8"), "cpu")
    assert outcome.verdict is Verdict.POSITION_DEPENDENT  # 8 ULP of cos against Sleef's 3.5
