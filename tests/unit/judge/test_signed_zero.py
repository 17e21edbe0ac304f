"""A result that differs from eager's only by the sign of a zero fed to an op discontinuous there (atan2 on its branch cut,
copysign) is the op's conditioning: +0 and -0 are one number, and IEEE leaves the sign of an exact zero to the arithmetic
that made it. A fused kernel whose x - y gives -0 where eager's gives +0 sends atan2(0, negative) to -pi instead of pi."""

from __future__ import annotations

import torch
from mode_target import ModeTarget
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case


def _zero_as(op, index: int, replace):
    """A mode in which `op`'s argument `index` reaches it as `replace(zero)` wherever it is an exact zero."""

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func is op:
                args = tuple(torch.where(a == 0, replace(a), a) if k == index else a for k, a in enumerate(args))
            return func(*args, **(kwargs or {}))

    return Mode


def _other_sign(zero: torch.Tensor) -> torch.Tensor:
    return -zero


def _minus_one(zero: torch.Tensor) -> torch.Tensor:  # a genuinely wrong value: not a zero of either sign
    return torch.full_like(zero, -1.0)


def _case(op: str, zero_arg: int) -> Case:
    # x - y is an exact +0 where x == y: the op gets it as argument `zero_arg`, the third input as the other
    n = 8
    x = torch.tensor([1.0, 0.25, 1.0, 0.75, 1.0, 0.3, 1.0, 0.6], dtype=torch.float16)
    y = torch.tensor([1.0, 0.5, 1.0, 1.5, 1.0, -0.7, 1.0, 2.0], dtype=torch.float16)
    other = torch.tensor([-0.5, -1.0, -2.0, -0.75, -1.5, -0.6, -3.0, -1.0], dtype=torch.float16)
    args = [3, 2] if zero_arg == 0 else [2, 3]
    graph = Graph(tuple(TensorSpec((n,), "fp16") for _ in range(3)), (Node.make("sub", [0, 1]), Node.make(op, args)), (4,))
    return Case.from_tensors(graph, [[x, y, other]], RunSpec("zero-sign", "cpu", samples=1), None)


def test_atan2_on_its_branch_cut_at_a_zero_of_the_other_sign_is_the_ops_condition():
    outcome = run_case(_case("atan2", 0), ModeTarget("zero-sign", _zero_as(torch.atan2, 0, _other_sign)))
    assert outcome.oracle is Verdict.LESS_ACCURATE  # pi against -pi, 6.28 apart
    assert outcome.verdict is Verdict.WITHIN_ROUNDING and outcome.rule == "value_within_bound", outcome.detail
    assert outcome.analysis.op == "atan2" and "zero input of the other sign, where the op is discontinuous" in outcome.detail
    record = outcome.analysis.rounding_error
    assert record.stored["target"]["signed_zero"] == 4 and record.target.max_condition == float("inf")


def test_copysign_of_a_zero_of_the_other_sign_is_the_ops_condition():
    outcome = run_case(_case("copysign", 1), ModeTarget("zero-sign", _zero_as(torch.copysign, 1, _other_sign)))
    assert outcome.oracle is Verdict.LESS_ACCURATE  # |other| against -|other|
    assert outcome.verdict is Verdict.WITHIN_ROUNDING and outcome.rule == "value_within_bound", outcome.detail


def test_a_wrong_value_at_a_zero_input_stays_a_finding():
    # atan2 fed -1 for the zero: neither sign of zero gives what it returns
    outcome = run_case(_case("atan2", 0), ModeTarget("zero-sign", _zero_as(torch.atan2, 0, _minus_one)))
    assert outcome.verdict is Verdict.LESS_ACCURATE and outcome.analysis.op == "atan2"
