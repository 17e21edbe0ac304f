"""A NaN or inf that eager and float64 agree on, and the target loses: the verdict `nonfinite_class`, its cause, and its
rules (`amplified` where no op loses it, `class_rest` where a culprit within its bound crosses a later op's domain, kept
whatever the bound where the op itself drops it)."""

from __future__ import annotations

import json
import math
from typing import Callable

import nan_bug_target  # noqa: F401  (registers `nan_bug`)
import numpy as np
import rounding_target  # noqa: F401  (registers `rounded`)
import torch
from test_nonfinite_rest import X as COS_X  # cos two ULPs up rounds 1 - 1.04e-7 to 1.0 (`cos_up`)
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import load_bounds, parse_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.nonfinite_class import FINITE, NAN, NEG_INF, POS_INF, class_lost, classes
from numfuzz.judge.oracle import OutputErrors, combine, compare_output
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.signature import severity, signature_of
from numfuzz.judge.verdicts import Verdict, severity_text
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.eager import Eager

INF, NAN_ = math.inf, math.nan


def test_a_nan_sign_is_no_class_and_infinities_are_two():
    x = np.array([NAN_, -NAN_, INF, -INF, 0.0, -0.0])
    assert classes(x).tolist() == [NAN, NAN, POS_INF, NEG_INF, FINITE, FINITE]
    assert not class_lost(x[:2], x[:2], x[1::-1]).any()  # NaN for -NaN: the same class


def test_a_class_eager_and_float64_agree_on_is_judged_and_a_lost_one_is_a_finding():
    ref = np.array([1.0, NAN_, INF, -INF, 2.0])
    same = compare_output(0, "fp32", ref, ref, ref)
    assert same.verdict == Verdict.EQUAL.value and same.class_lost == 0 and same.elements == 2
    lost = compare_output(0, "fp32", ref, ref, np.array([1.0, 0.0, NAN_, INF, 2.0]))
    assert lost.verdict == Verdict.NONFINITE_CLASS.value and lost.elements == 2
    assert lost.class_changes == {"+inf -> NaN": 1, "-inf -> +inf": 1, "NaN -> finite": 1} and lost.worst_element == 1


def test_where_eager_disagrees_with_float64_the_element_stays_left_out():
    ref = np.array([NAN_, INF, 1.0])
    out = compare_output(0, "fp32", ref, np.array([3.0, -INF, 1.0]), np.array([0.0, 5.0, 1.0]))
    assert out.verdict == Verdict.EQUAL.value and out.class_lost == 0


def test_an_output_of_only_lost_elements_is_judged_and_one_the_target_keeps_stays_invalid():
    ref = np.array([NAN_, NAN_])
    lost = compare_output(0, "bf16", ref, ref, np.array([0.0, NAN_]))
    assert lost.elements == 0 and lost.judged and combine([lost]) is Verdict.NONFINITE_CLASS
    assert combine([compare_output(0, "bf16", ref, ref, ref)]) is Verdict.INVALID


def test_the_class_lost_ranks_below_nonfinite_and_above_less_accurate():
    exact = np.array([1.0, 2.0, NAN_])
    nonfinite = compare_output(0, "fp32", exact, exact, np.array([1.0, INF, NAN_]))
    lost = compare_output(1, "fp32", exact, exact, np.array([1.0, 2.0, 7.0]))
    worse = compare_output(2, "fp32", exact[:2], exact[:2], np.array([1.5, 2.0]))
    assert worse.verdict == Verdict.LESS_ACCURATE.value
    assert combine([worse, lost]) is Verdict.NONFINITE_CLASS and combine([lost, nonfinite, worse]) is Verdict.NONFINITE


def test_an_output_stored_before_the_class_was_judged_loads_with_none_lost():
    data = compare_output(0, "fp32", np.array([1.0]), np.array([1.0]), np.array([1.0])).to_json()
    data.pop("class_changes")
    old = OutputErrors.from_json(json.loads(json.dumps(data)))
    assert old.class_changes == {} and old.judged
    lost = compare_output(0, "fp32", np.array([NAN_]), np.array([NAN_]), np.array([0.0]))
    assert OutputErrors.from_json(json.loads(json.dumps(lost.to_json()))).class_changes == {"NaN -> finite": 1}


def test_the_local_check_reads_each_sides_own_reference():
    # the op on the target's inputs gives NaN; on eager's it gives a number: eager's value says nothing of the class
    ref, e_ref = np.array([NAN_]), np.array([1.0])
    assert not class_lost(ref, np.array([NAN_]), np.array([0.0]), e_ref).any()
    assert class_lost(ref, np.array([NAN_]), np.array([0.0]), np.array([NAN_])).any()


# --- the cause and the rules, on planted targets -------------------------------------------------------------------


class _AcoshClamped(TorchFunctionMode):
    """acosh of its input clamped to 1: 0 below 1, where acosh is NaN."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.acosh:
            return func(torch.clamp(args[0], min=1.0))
        return func(*args, **(kwargs or {}))


class AcoshClamped(Eager):
    def __init__(self, arg: str | None = None):
        self.name = "acosh_clamped"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with _AcoshClamped():
                return fn(*args)

        return run


register("acosh_clamped", AcoshClamped, "eager with acosh clamping its input to 1 (tests only)")

SHIPPED = load_bounds([])
LOOSE = parse_bounds('[[bound]]\nops = ["acosh", "mean"]\nulp = 1e9\nsource = "tests"\n', "loose.toml", SHIPPED)


def test_an_op_that_drops_the_nan_itself_is_a_finding_whatever_the_bound():
    graph = Graph((TensorSpec((8,), "fp32"),), (Node.make("exp", [0]), Node.make("acosh", [1])), (2,))
    x = torch.linspace(-3.0, -1.0, 8)  # exp(x) < 1: acosh is NaN, in eager and in float64
    outcome = run_case(Case.from_tensors(graph, [[x]], "acosh_clamped"), resolve("acosh_clamped"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE_CLASS and outcome.analysis.cause == "nonfinite_dropped"
    assert outcome.analysis.op == "acosh" and "8 NaN -> finite" in outcome.analysis.evidence[0]
    assert "sample(s) its inputs are finite" in outcome.analysis.evidence[1] and outcome.analysis.rounding_error is None
    stored = Outcome.from_json(json.loads(json.dumps(outcome.to_json())))
    assert final_verdict(stored.oracle, stored.analysis, LOOSE).verdict is Verdict.NONFINITE_CLASS
    assert severity(outcome) == math.inf and severity_text(severity(outcome), outcome.verdict.value) == "NaN/inf lost"
    assert signature_of("acosh_clamped", outcome).text() == "acosh_clamped | nonfinite_class | acosh | fp32 | nonfinite_dropped"


def test_the_planted_empty_mean_is_located_at_the_mean_and_the_control_is_clean():
    graph = Graph((TensorSpec((3, 0), "fp32"),), (Node.make("exp", [0]), Node.make("mean", [1], dim=1, keepdim=False), Node.make("add", [2, 2])), (3,))
    case = lambda target: Case.from_tensors(graph, [[torch.zeros(3, 0)]], target)  # noqa: E731
    found = run_case(case("nan_bug"), resolve("nan_bug"), "cpu")
    assert found.verdict is Verdict.NONFINITE_CLASS and found.analysis.culprit.op == "mean" and found.analysis.cause == "nonfinite_dropped"
    assert run_case(case("nan_bug_control"), resolve("nan_bug_control"), "cpu").verdict is Verdict.INVALID  # NaN everywhere, kept


# acosh(cos(x)): cos(4.56e-4) = 1 - 1.04e-7, acosh NaN in float64 and in eager (cos 1 - 2**-23); cos two ULPs up is 1.0, acosh 0
ACOSH_COS = Graph((TensorSpec((16,), "fp32"),), (Node.make("cos", [0]), Node.make("acosh", [1])), (2,))


def test_a_culprit_within_its_bound_that_crosses_a_later_ops_domain_is_rounding_and_beyond_it_a_finding():
    outcome = run_case(Case.from_tensors(ACOSH_COS, [[COS_X]], "cos_up"), resolve("cos_up"), "cpu", bounds=SHIPPED)
    assert outcome.oracle is Verdict.NONFINITE_CLASS and outcome.verdict is Verdict.WITHIN_ROUNDING and outcome.rule == "class_rest"
    assert outcome.analysis.op == "cos" and "gives the target's class at all 16 elements" in outcome.analysis.class_rest
    tight = parse_bounds('[[bound]]\nops = ["cos"]\nulp = 0.5\nsource = "tests"\n', "tight.toml", SHIPPED)
    assert final_verdict(outcome.oracle, outcome.analysis, tight).verdict is Verdict.NONFINITE_CLASS


def test_a_nan_lost_where_no_op_is_worse_is_amplified():
    # sqrt(-log(abs(log_softmax(x)))): float64's log_softmax is -1.0016 and eager's -1.0078, so both take sqrt of a
    # negative; the correctly rounded target's is -1.0, closer to float64, and sqrt(-0.0) is -0.0
    nodes = (Node.make("log_softmax", [0], dim=0), Node.make("abs", [1]), Node.make("log", [2]), Node.make("neg", [3]), Node.make("sqrt", [4]))
    x = torch.tensor([0.001953125, -0.375, -0.01953125], dtype=torch.bfloat16)
    outcome = run_case(Case.from_tensors(Graph((TensorSpec((3,), "bf16"),), nodes, (5,)), [[x]], "rounded"), resolve("rounded"), "cpu")
    assert outcome.oracle is Verdict.NONFINITE_CLASS and outcome.verdict is Verdict.AMPLIFIED and outcome.rule == "amplified"
