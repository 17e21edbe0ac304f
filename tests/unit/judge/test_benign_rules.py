"""The benign named as such, each by a rule of `final_verdict`, on the cases a maintainer would not take as reports.

* `acosh(sinc(x) + 1)` at x = 14 in fp16: the compiled fp32 sinc is 5e-8 off its exact zero, and acosh, whose condition
  is infinite at 1, turns that into 4.9e-4 (where the worst element is finite), or a NaN (where it falls below 1);
* an fp16 linear whose outputs overflow in eager too, one more element overflowing compiled;
* an fp16 attention gradient 504 ULP off at an element near zero, its largest absolute error eager's own.
A dropped cast stays a finding under each of them.
"""

from __future__ import annotations

import math

import torch

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome, Runs
from numfuzz.judge.facts import Analysis, Culprit
from numfuzz.judge.overflow_boundary import overflow_boundary_evidence
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

BOUNDS = load_bounds([])


def _side(forward: float, needed: float, condition: float) -> dict:
    worst = [{"sample": 0, "element": 4, "value": 4.9e-4, "exact": 0.0, "forward_ulp": forward, "condition": condition, "needed_ulp": needed}]
    return {"max_forward_ulp": forward, "max_needed_ulp": needed, "max_condition": condition, "front": [[forward, needed]], "worst": worst}


def _acosh(condition: float, cause: str = "unexplained") -> Analysis:
    """The issue's acosh: 2**11 ULP at its output where its exact value is 0, unexplained by any input move."""
    record = {"op": "acosh", "dtype": "fp16", "device": "cpu", "n": 1, "target": _side(2048.0, "inf", condition), "eager": _side(0.0, 0.0, condition)}
    culprit = Culprit(2, "acosh", "fp16", "less_accurate", "probe")
    return Analysis(0, cause, ["..."], "acosh", "fp16", culprit=culprit, rounding_error=RoundingRecord.from_json(record))


def test_an_op_at_infinite_condition_amplifies_rather_than_computes_worse():
    judged = final_verdict(Verdict.LESS_ACCURATE, _acosh("inf"), BOUNDS)
    assert judged.verdict is Verdict.AMPLIFIED and judged.rule == "ill_conditioned_culprit", judged
    assert "condition is inf" in judged.why
    assert final_verdict(Verdict.LESS_ACCURATE, _acosh(2.0**10), BOUNDS).verdict is Verdict.AMPLIFIED  # fp16: all its bits
    # a well-conditioned op off by as much is a finding
    assert final_verdict(Verdict.LESS_ACCURATE, _acosh(3.0), BOUNDS).verdict is Verdict.LESS_ACCURATE
    # a NaN condition (0/0: hardtanh's clamped zero, where the op is flat) amplifies nothing: two ULPs off it are a finding
    assert final_verdict(Verdict.LESS_ACCURATE, _acosh("nan"), BOUNDS).verdict is Verdict.LESS_ACCURATE
    assert final_verdict(Verdict.LESS_ACCURATE, _acosh(math.inf, cause="cast_dropped"), BOUNDS).verdict is Verdict.LESS_ACCURATE


def test_the_same_program_on_inductor_is_no_finding_whichever_way_its_rounding_falls():
    """Live, on this machine's Inductor: 1 + sinc(14) lands below 1 (acosh NaN: its domain's edge) or above it (acosh at
    infinite condition); eager's fp16 sinc is exactly 0 either way."""
    graph = Graph((TensorSpec((64,), "fp16"),), (Node.make("sinc", [0]), Node.make("add_scalar", [1], value=1.0), Node.make("acosh", [2])), (3,))
    case = Case.from_tensors(graph, [[torch.arange(1, 65, dtype=torch.float16)]], RunSpec("inductor", "cpu", samples=1))
    outcome = run_case(case, resolve("inductor"))
    assert not outcome.verdict.is_finding and outcome.rule in ("domain_edge", "ill_conditioned_culprit", ""), (outcome.verdict, outcome.detail)


def _linear_runs(eager: list[float], target: list[float]) -> Evidence:
    graph = Graph((TensorSpec((4,), "fp16"),), (Node.make("relu", [0]),), (1,))
    runs = Runs([(torch.tensor(eager, dtype=torch.float16),)], [(torch.zeros(4, dtype=torch.float64),)], [(torch.tensor(target, dtype=torch.float16),)])
    ev = Evidence(graph, [[torch.zeros(4, dtype=torch.float16)]], resolve("eager"), "cpu", Outcome(Verdict.NONFINITE, runs=runs), 0)
    ev.culprit = Culprit(0, "relu", "fp16", "nonfinite", "single op")
    return ev


def test_a_non_finite_value_that_eager_overflows_beside_is_the_programs_overflow():
    inf = math.inf
    moved = overflow_boundary_evidence(_linear_runs([inf, 65000.0, 3.0, -inf], [inf, inf, 3.0, -inf]))
    assert moved is not None and "overflows too (2 non-finite elements)" in moved
    assert overflow_boundary_evidence(_linear_runs([inf, 65000.0, 3.0, -inf], [inf, inf, inf, -inf])) is None  # 3.0 is far from it
    assert overflow_boundary_evidence(_linear_runs([1.0, 65000.0, 3.0, 2.0], [1.0, inf, 3.0, 2.0])) is None  # eager never overflows
    facts = Analysis(0, "nonfinite_intermediate", ["..."], "linear", "fp16", culprit=Culprit(2, "linear", "fp16", "nonfinite", "probe"))
    assert final_verdict(Verdict.NONFINITE, facts, BOUNDS).verdict is Verdict.NONFINITE
    facts.overflows_too = moved
    judged = final_verdict(Verdict.NONFINITE, facts, BOUNDS)
    assert judged.verdict is Verdict.EAGER_UNSTABLE and judged.rule == "overflows_too"
    facts.cause = "cast_dropped"  # a dropped cast that moves the overflow is still the dropped cast
    assert final_verdict(Verdict.NONFINITE, facts, BOUNDS).verdict is Verdict.NONFINITE


def test_a_gradient_worse_in_ulps_only_near_zero_with_eagers_absolute_error_is_rounding():
    culprit = Culprit(0, "sdpa", "fp16", "less_accurate", "cutting the backward")
    facts = Analysis(3, "backward", ["..."], "sdpa", "fp16", culprit=culprit, gradient_of=0, gradient_max_abs=(0.00244, 0.00244))
    judged = final_verdict(Verdict.LESS_ACCURATE, facts, BOUNDS)
    assert judged.verdict is Verdict.WITHIN_ROUNDING and judged.rule == "gradient_abs_no_worse", judged
    facts.gradient_max_abs = (0.0098, 0.00244)  # four times eager's absolute error: a finding
    assert final_verdict(Verdict.LESS_ACCURATE, facts, BOUNDS).verdict is Verdict.LESS_ACCURATE
    facts.gradient_max_abs = (1e-9, 0.0)  # eager exact: the target's error is its own
    assert final_verdict(Verdict.LESS_ACCURATE, facts, BOUNDS).verdict is Verdict.LESS_ACCURATE


def test_an_output_where_eager_has_no_correct_bit_is_noise_and_one_with_bits_a_finding():
    """The gradients upstream of a LayerNorm whose loss barely depends on its input: about 1e-9 in float64, eager's
    1e-7 off, a compiled one 1e-6 off. Eager has no correct bit, so the compiled output being further off is noise;
    the same errors on an output of size 1 are a finding."""
    from numfuzz.judge.oracle import compare_output
    from numfuzz.model.verdict import judge_outputs_by_rules

    gen = torch.Generator().manual_seed(0)
    for scale, eager_off, target_off, expected in ((1e-9, 1e-7, 1e-5, Verdict.EAGER_UNSTABLE), (1.0, 0.0, 0.2, Verdict.LESS_ACCURATE)):
        reference = torch.randn(256, generator=gen, dtype=torch.float64) * scale
        eager = (reference + torch.randn(256, generator=gen, dtype=torch.float64) * eager_off).bfloat16().double()
        target = (reference + torch.randn(256, generator=gen, dtype=torch.float64) * target_off).bfloat16().double()
        errors = compare_output(1, "bf16", reference.numpy(), eager.numpy(), target.numpy())
        judged = judge_outputs_by_rules([errors], 1, lambda worse: False, BOUNDS)
        assert judged.verdict is expected, (scale, judged)
        rule = judged.rules[1].rule if 1 in judged.rules else ""
        assert (rule == "eager_no_correct_bits") is (expected is Verdict.EAGER_UNSTABLE), judged.rules


def test_a_finding_stored_before_the_outputs_scale_was_kept_is_measured_again():
    facts = Analysis(0, "low_precision", [], "exp", "bf16")
    from numfuzz.judge.rules.values import EagerNoCorrectBits

    assert EagerNoCorrectBits().unmeasured(facts, BOUNDS) is not None
    facts.eager_noise = (1e-7, 1e-9)
    assert EagerNoCorrectBits().unmeasured(facts, BOUNDS) is None
    assert final_verdict(Verdict.LESS_ACCURATE, facts, BOUNDS).verdict is Verdict.EAGER_UNSTABLE
    facts.eager_noise = (0.0, 0.0)  # eager exact on an all-zero output: the target's error is its own
    assert final_verdict(Verdict.LESS_ACCURATE, facts, BOUNDS).verdict is Verdict.LESS_ACCURATE


def test_a_record_without_the_outputs_scale_is_decided_where_eagers_relative_error_bounds_it():
    """Eager's largest relative error below 1 bounds the scale above eager's largest error: the rule cannot hold, and
    the stored finding needs no new measurement; at or above 1 only a new measurement can say."""
    from dataclasses import replace

    from numfuzz.judge.eager_noise import eager_noise
    from numfuzz.judge.oracle import compare_output

    exact = torch.linspace(1, 2, 64, dtype=torch.float64)
    errors = compare_output(0, "bf16", exact.numpy(), exact.bfloat16().double().numpy(), (exact * 1.1).bfloat16().double().numpy())
    assert eager_noise([errors], 0) == (errors.eager_max_abs, errors.reference_max_abs)
    old = replace(errors, reference_max_abs=None)
    eager, scale = eager_noise([old], 0)
    assert eager < scale <= errors.reference_max_abs  # a lower bound of the scale, past eager's error
    assert eager_noise([replace(old, eager_max_rel=3.0)], 0) is None
