"""A non-finite result that the exact rest of the program makes from a culprit value within its bound is within rounding."""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import load_bounds, parse_bounds
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.eager import Eager


class _CosTwoUlpsUp(TorchFunctionMode):
    """cos two fp32 ULPs toward +inf: within Sleef's 3.5 ULP, and 1.0 where eager's is 1 - 2**-23."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func is torch.cos:
            up = torch.full_like(out, float("inf"))
            return torch.nextafter(torch.nextafter(out, up), up)
        return out


class CosUp(Eager):
    def __init__(self, arg: str | None):
        self.name = "cos_up"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with _CosTwoUlpsUp():
                return fn(*args)

        return run


register("cos_up", CosUp, "eager with cos two ULPs up (tests only)")
# digamma(log(cos(x))): cos near 1 has condition x*tan(x) ~ 1e-7, log near 1 and digamma near 0 are poles.
POLE = Graph((TensorSpec((16,), "fp32"),), (Node.make("cos", [0]), Node.make("log", [1]), Node.make("digamma", [2])), (3,))
X = torch.full((16,), 4.56e-4)  # cos 1 - 1.04e-7: eager's is 1 - 2**-23, two ULPs up it is 1.0 (1.75 ULP off), log 0, digamma -inf


def test_a_pole_after_a_within_bound_culprit_is_rounding_not_a_finding():
    outcome = run_case(Case.from_tensors(POLE, [[X]], "cos_up"), resolve("cos_up"), "cpu")
    assert outcome.verdict is Verdict.WITHIN_ROUNDING
    assert outcome.analysis.op == "cos" and "non-finite at all 16 elements" in outcome.analysis.nonfinite_rest
    assert outcome.oracle is Verdict.NONFINITE and outcome.rule == "nonfinite_rest"


def test_the_same_culprit_is_not_rounding_where_the_exact_rest_stays_finite():
    x = torch.full((16,), 0.5)  # cos(0.5) two ULPs up: finite through log and digamma, so less accurate at most
    outcome = run_case(Case.from_tensors(POLE, [[x]], "cos_up"), resolve("cos_up"), "cpu")
    assert outcome.verdict is not Verdict.NONFINITE and (outcome.analysis is None or outcome.analysis.nonfinite_rest is None)


def test_judged_again_with_a_tighter_bound_it_is_nonfinite_again():
    outcome = run_case(Case.from_tensors(POLE, [[X]], "cos_up"), resolve("cos_up"), "cpu")
    tight = parse_bounds('[[bound]]\nops = ["cos"]\nulp = 0.25\nsource = "tests"\n', "tight.toml", load_bounds())
    assert final_verdict(outcome.oracle, outcome.analysis, tight).verdict is Verdict.NONFINITE
    assert final_verdict(outcome.oracle, outcome.analysis, load_bounds()).verdict is Verdict.WITHIN_ROUNDING


class _ProductToOneAndErfinvUp(TorchFunctionMode):
    """mul rounds to 1.0 where its product rounds to 1 - 2**-24 (a product `far` below 1 too, when asked); erfinv one ULP up
    everywhere (within its default bound of 2, and worse than eager's: the culprit)."""

    def __init__(self, far: bool):
        super().__init__()
        self.far = far

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in (torch.mul, torch.Tensor.mul):  # lowering writes `x0 * x1`, which dispatches as Tensor.mul
            below_one = torch.tensor(1 - 2**-24) if not self.far else torch.tensor(0.999)
            return torch.where(out == below_one, torch.ones_like(out), out)
        if func is torch.erfinv:
            return torch.nextafter(out, torch.full_like(out, float("inf")))
        return out


def _erfinv_of_product(far: bool) -> Verdict:
    from mode_target import ModeTarget

    graph = Graph((TensorSpec((64,), "fp32"), TensorSpec((64,), "fp32")), (Node.make("mul", [0, 1]), Node.make("erfinv", [2])), (3,))
    x0, x1 = torch.linspace(-0.9, 0.9, 64), torch.ones(64)
    x0[7], x1[7] = (1 - 3 * 2**-24, 1 + 2**-23) if not far else (0.999, 1.0)  # exact product 1 - 2**-24 - 6 * 2**-48, or 0.999
    target = ModeTarget("erfinv_of_one", lambda: _ProductToOneAndErfinvUp(far))
    outcome = run_case(Case.from_tensors(graph, [[x0, x1]], "eager"), target, "cpu")
    assert outcome.oracle is Verdict.NONFINITE
    return outcome


def test_a_pole_at_the_output_op_reached_one_rounding_away_is_within_rounding():
    """The quick start's erfinv(softsign(...)): softsign's 1.0 (0.66 ULP off) where eager's rounds to 0.99999994; erfinv(1) is inf."""
    outcome = _erfinv_of_product(far=False)
    assert outcome.analysis.op == "erfinv" and outcome.verdict is Verdict.WITHIN_ROUNDING, outcome.detail
    assert outcome.rule == "nonfinite_rest" and "within 1 ULP of their float64 values" in outcome.detail


def test_a_pole_reached_from_an_input_far_from_its_value_stays_a_finding():
    outcome = _erfinv_of_product(far=True)
    assert outcome.verdict is Verdict.NONFINITE, outcome.detail
