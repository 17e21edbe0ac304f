"""An integer output decided from floats: where the floats are no finding and the decision differs only where they
differ, the exact mismatch is amplified; where they are bitwise eager's, the deciding op itself is wrong."""

from __future__ import annotations

import torch
from mode_target import ModeTarget

from numfuzz.corpus.case import Case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.op_db.family import FORMS
from numfuzz.runner.case_runner import run_case

SIGNBIT = next(k for k, form in enumerate(FORMS["db.signbit"]) if form.call == "torch.signbit({0})" and not form.integer)
GRAPH = Graph(
    (TensorSpec((2, 3), "fp32"),),
    (Node.make("sum", [0], dim=1, keepdim=False), Node.make("db.signbit", [1], form="torch.signbit({0})", sample=SIGNBIT)),
    (2,),
)
# -1 + 1 - 1e-8 is -1e-8 in order; from the end, 1 - 1e-8 rounds to 1 and the sum is 0: rounding, and signbit tells them apart
X = torch.tensor([[-1.0, 1.0, -1e-8], [0.5, 0.25, 0.25]])


class _SumFromTheEnd(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.sum and kwargs.get("dim") == 1:
            x = args[0]
            total = x[:, -1].clone()
            for k in range(x.shape[1] - 2, -1, -1):
                total = total + x[:, k]
            return total
        return func(*args, **kwargs)


class _SignbitNegated(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return ~out if func is torch.signbit else out


def test_a_decision_flipped_by_a_sum_within_rounding_is_amplified():
    outcome = run_case(Case.from_tensors(GRAPH, [[X]], "eager"), ModeTarget("sum_from_the_end", _SumFromTheEnd), "cpu")
    assert outcome.oracle is Verdict.EXACT_MISMATCH and outcome.verdict is Verdict.AMPLIFIED, outcome.detail
    assert outcome.analysis.cause == "ill_conditioned" and "db.signbit" in outcome.analysis.evidence[0]


def test_a_deciding_op_wrong_on_eagers_own_floats_stays_a_finding():
    outcome = run_case(Case.from_tensors(GRAPH, [[X]], "eager"), ModeTarget("signbit_negated", _SignbitNegated), "cpu")
    assert outcome.verdict is Verdict.EXACT_MISMATCH and outcome.analysis is None, outcome.detail


class _NaNSignFlipped(torch.overrides.TorchFunctionMode):
    """A NaN of the other sign from sqrt, as Inductor's vectorised kernels may give (pytorch#189808)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return torch.where(torch.isnan(out), -out, out) if func is torch.sqrt else out


SQRT_GRAPH = Graph(
    (TensorSpec((3,), "fp32"),),
    (Node.make("sqrt", [0]), Node.make("db.signbit", [1], form="torch.signbit({0})", sample=SIGNBIT)),
    (2,),
)


def test_a_decision_flipped_by_a_nans_sign_is_amplified():
    # sqrt(-1) is NaN on both sides, of another sign: no class (IEEE 754 does not interpret it), and signbit reads it
    x = torch.tensor([-1.0, 4.0, 0.25])
    outcome = run_case(Case.from_tensors(SQRT_GRAPH, [[x]], "eager"), ModeTarget("nan_sign_flipped", _NaNSignFlipped), "cpu")
    assert outcome.oracle is Verdict.EXACT_MISMATCH and outcome.verdict is Verdict.AMPLIFIED, outcome.detail
    assert outcome.analysis.cause == "ill_conditioned" and "db.signbit" in outcome.analysis.evidence[0]


def test_a_decision_read_from_nans_alone_of_another_sign_is_amplified():
    # every float NaN: the floats' program has no finite reference to judge, and the classes agree everywhere
    x = torch.tensor([-1.0, -4.0, -0.25])
    outcome = run_case(Case.from_tensors(SQRT_GRAPH, [[x]], "eager"), ModeTarget("nan_sign_flipped", _NaNSignFlipped), "cpu")
    assert outcome.oracle is Verdict.EXACT_MISMATCH and outcome.verdict is Verdict.AMPLIFIED, outcome.detail
    assert "NaN" in outcome.analysis.evidence[0]
