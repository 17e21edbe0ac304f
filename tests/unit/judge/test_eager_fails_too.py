"""Eager fails too: a compiled value worse than eager's, where eager's own value at the op is far outside its bound, is no compiler bug."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from mode_target import ModeTarget
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import load_bounds, parse_bounds
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve


class _TanhUp(TorchFunctionMode):
    """tanhshrink as x - tanh(x) with tanh `ulps` fp32 ULPs toward +inf: it cancels a little worse than eager's."""

    def __init__(self, ulps: int):
        super().__init__()
        self.ulps = ulps

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is not F.tanhshrink:
            return func(*args, **(kwargs or {}))
        x = args[0]
        y = torch.tanh(x)
        for _ in range(self.ulps):
            y = torch.nextafter(y, torch.full_like(y, torch.inf))
        return x - y


register("tanh_up", lambda arg: ModeTarget(f"tanh_up:{arg or '4'}", lambda: _TanhUp(int(arg or "4"))), "eager with tanh some ULPs up (tests only)")
TANHSHRINK = Graph((TensorSpec((64,), "fp32"),), (Node.make("tanhshrink", [0]),), (1,))
SMALL = torch.linspace(0.01, 0.05, 64)  # x - tanh(x) ~ x**3 / 3: eager's own fp32 difference cancels
# The rule is shown on tanhshrink bounded in ULPs of its output, as an op without a documented bound is (the stated
# default): the shipped table bounds it in ULPs of its input, by which eager's value is accurate (`test_rounding_error`).
OUTPUT_UNITS = '[[bound]]\nops = ["tanhshrink"]\nulp = 2.0\nsource = "the stated default, in ULPs of the output (tests)"\n'


@pytest.fixture(autouse=True)
def tanhshrink_in_output_units(tmp_path, monkeypatch):
    path = tmp_path / "output_units.toml"
    path.write_text(OUTPUT_UNITS)
    monkeypatch.setenv("NUMFUZZ_BOUNDS", str(path))


def _bounds():
    return parse_bounds(OUTPUT_UNITS, "output_units.toml", load_bounds([]))


def test_a_formula_that_cancels_in_eager_too_is_eager_unstable_not_a_finding():
    outcome = run_case(Case.from_tensors(TANHSHRINK, [[SMALL]], "tanh_up:4"), resolve("tanh_up:4"), "cpu")
    assert outcome.oracle is Verdict.LESS_ACCURATE
    assert outcome.verdict is Verdict.EAGER_UNSTABLE and not outcome.verdict.is_finding, outcome.detail
    assert outcome.rule == "eager_fails_too" and "eager is equally unstable at `tanhshrink`" in outcome.detail
    assert final_verdict(Verdict.NONFINITE, outcome.analysis, _bounds()).verdict is Verdict.NONFINITE  # never for a non-finite result


def test_where_eager_is_accurate_the_same_target_stays_a_finding():
    large = torch.linspace(2.0, 4.0, 64)  # no cancellation: eager's tanhshrink is good to an ULP
    outcome = run_case(Case.from_tensors(TANHSHRINK, [[large]], "tanh_up:64"), resolve("tanh_up:64"), "cpu")
    assert outcome.verdict is Verdict.LESS_ACCURATE, (outcome.verdict, outcome.detail)


def test_a_bound_loose_enough_for_eager_gives_the_finding_back():
    """Judged again where the op's bound is eager's own need: eager is within 16 times it, the target (needing more) is not."""
    stored = run_case(Case.from_tensors(TANHSHRINK, [[SMALL]], "tanh_up:4"), resolve("tanh_up:4"), "cpu")
    record = stored.analysis.rounding_error
    eager, target = record.eager.max_needed_ulp, record.target.max_needed_ulp
    assert target > eager > 16 * 2  # both far outside the shipped 2 ULP; the target needs more
    loose = parse_bounds(f'[[bound]]\nops = ["tanhshrink"]\nulp = {eager}\nsource = "tests"\n', "loose.toml", _bounds())
    assert final_verdict(stored.oracle, stored.analysis, loose).verdict is Verdict.LESS_ACCURATE
