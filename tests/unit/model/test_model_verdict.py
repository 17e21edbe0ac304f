"""A model's outputs and gradients are judged by numfuzz's one verdict (`judge.rules.final_verdict`): a gradient that loses
at most 2 bits is `fused_backward`, a dropped cast is kept and matched to its known issue, a crash after the first call is a run-time one."""

from __future__ import annotations

import numpy as np
import pytest

from numfuzz.judge.cause import CAST_DROPPED
from numfuzz.judge.oracle import compare_output
from numfuzz.judge.verdicts import Verdict
from numfuzz.model.verdict import judge_outputs_by_rules, known_issue, run_target

EXACT = np.linspace(-2, 2, 64)


def _output(index: int, off: float):
    """An fp32 output whose target is off by `off` relative at every element, eager correctly rounded."""
    eager = EXACT.astype(np.float32).astype(np.float64)
    return compare_output(index, "fp32", EXACT, eager, (EXACT * (1 + off)).astype(np.float32).astype(np.float64))


def _never(worse: list[int]) -> bool:
    return False


def test_a_gradient_losing_at_most_two_bits_is_fused_backward_and_the_loss_is_not():
    loss, grad = _output(0, 0.0), _output(1, 2**-24)  # 1.3 bits lost
    judged = judge_outputs_by_rules([loss, grad], 1, _never)
    assert judged.verdict is Verdict.WITHIN_ROUNDING and judged.rules[1].rule == "fused_backward"
    assert judged.outputs[1].verdict == Verdict.WITHIN_ROUNDING.value
    worse = judge_outputs_by_rules([_output(0, 2**-24), grad], 1, _never)  # the same error in the loss is a finding
    assert worse.verdict is Verdict.LESS_ACCURATE and 0 not in worse.rules


def test_a_gradient_losing_more_bits_stays_less_accurate():
    judged = judge_outputs_by_rules([_output(0, 0.0), _output(1, 2**-15)], 1, _never)
    assert judged.verdict is Verdict.LESS_ACCURATE and not judged.rules and judged.facts.gradient_of == 0


def test_a_dropped_cast_is_kept_and_is_inductor_s_known_cast_elision_not_another_target_s():
    asked = []

    def casts_explain(worse: list[int]) -> bool:
        asked.append(worse)
        return True

    judged = judge_outputs_by_rules([_output(0, 2**-15)], None, casts_explain)
    assert asked == [[0]] and judged.verdict is Verdict.LESS_ACCURATE and judged.cause == CAST_DROPPED.name
    assert judged.facts.op == "cast" and judged.facts.cause == CAST_DROPPED.name
    assert known_issue("inductor", judged, "cpu") == "inductor-cast-elision"
    assert known_issue("eager_planted", judged, "cpu") == ""
    plain = judge_outputs_by_rules([_output(0, 2**-15)], None, _never)
    assert plain.cause == "" and known_issue("inductor", plain, "cpu") == ""


@pytest.mark.parametrize(("failing_row", "verdict"), [(0, Verdict.CRASH_COMPILE), (1, Verdict.CRASH_RUN)])
def test_a_crash_on_the_first_call_is_at_compile_time_and_on_a_later_one_at_run_time(failing_row, verdict):
    def run(row: int) -> list:
        if row == failing_row:
            raise RuntimeError("the kernel fell over")
        return []

    judged = run_target(run, [0, 1, 2])
    assert judged.verdict is verdict and judged.detail == "RuntimeError: the kernel fell over"


@pytest.mark.parametrize(
    ("message", "issue"),
    [
        ("trying to set .global_var of ProvenanceRecord(\n  i1: INPUT_FN()\n)to object of type dict", "thunder-jit-transformers-output-capture"),
        ("scaled_dot_product_attention() got an unexpected keyword argument 'enable_gqa'", "thunder-sdpa-enable-gqa"),
    ],
)
def test_thunder_jit_crashes_on_transformers_models_are_known_limitations(message: str, issue: str):
    from numfuzz.model.verdict import crashed

    error = AssertionError(message) if message.startswith("trying") else TypeError(message)
    assert known_issue("thunder:torchcompile", crashed(error, first_call=True), "cpu") == issue
    assert known_issue("thunderfx:torchcompile", crashed(error, first_call=True), "cpu") == ""  # Dynamo's front end compiles these models


def _refuse(row: list) -> list:
    raise NotImplementedError("ceil_mode=True is not supported")


def test_a_target_refusing_in_its_own_code_is_unsupported_and_elsewhere_a_crash():
    refused = run_target(_refuse, [[1]], own=(__name__,))
    assert refused.verdict is Verdict.UNSUPPORTED and refused.detail.startswith("NotImplementedError: ceil_mode=True is not supported")
    assert f"raised in {__name__}" in refused.detail
    assert run_target(_refuse, [[1]], own=("thunder",)).verdict is Verdict.CRASH_COMPILE  # raised outside the target's code


def test_a_gradient_worse_in_ulps_only_near_zero_is_rounding_in_the_model_path_too():
    """ViT's layernorm weight gradient through Inductor: 2.9 bits lost in ULPs, at elements near zero, while its largest
    absolute error is no larger than eager's (`gradient_abs_no_worse`, which the campaign's analysis applies too)."""
    exact = np.concatenate([np.linspace(-2, 2, 60), np.full(4, 1e-6)])
    eager = exact + np.where(np.abs(exact) > 1e-3, 1e-3, 0.0)
    target = exact + np.where(np.abs(exact) > 1e-3, 0.0, 5e-4)
    grad = compare_output(1, "fp32", exact, eager, target)
    judged = judge_outputs_by_rules([_output(0, 0.0), grad], 1, _never)
    assert judged.verdict is Verdict.WITHIN_ROUNDING and judged.rules[1].rule == "gradient_abs_no_worse", judged.rules
