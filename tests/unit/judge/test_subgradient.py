"""A gradient that parts from eager's only where the op has no derivative, and between its one-sided derivatives
there, is another subgradient (`judge.kinks`): no finding. One outside them, or at a point where the op is smooth, is.

Planted: relu's gradient at x = 0 taken as 1 (its right derivative, where eager's formula gives 0), or as 2 (no side's),
and exp's gradient doubled everywhere (smooth)."""

from __future__ import annotations

import torch
from mode_target import ModeTarget
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case


def _scaled_at(mask_of, scale: float):
    """A function whose value is `func`'s and whose gradient is eager's, plus `scale` times upstream where `mask_of(x)`."""

    class _Planted(TorchFunctionMode):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func is self.func and args[0].requires_grad:
                x = args[0]
                extra = (x - x.detach()) * mask_of(x.detach()).to(x.dtype) * scale  # value 0, gradient `scale` where masked
                return out + extra
            return out

    return _Planted


def _judged(op: str, func, mask_of, scale: float, x: torch.Tensor) -> tuple[Verdict, str]:
    graph = Graph((TensorSpec(tuple(x.shape), "fp32"),), (Node.make(op, [0]),), (1,))
    upstream = [[torch.linspace(0.5, 1.5, x.numel()).reshape(x.shape)]]
    mode = _scaled_at(mask_of, scale)
    target = ModeTarget(f"planted_{op}", lambda: mode(func))
    outcome = run_case(Case.from_tensors(graph, [[x]], RunSpec(target.name, "cpu", samples=1, grad=True), upstream), target)
    return outcome.verdict, outcome.rule


def test_relus_gradient_at_zero_taken_from_the_right_is_a_subgradient_and_one_past_both_sides_is_not():
    x = torch.tensor([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 0.0, 3.0])
    at_zero = lambda v: v == 0  # noqa: E731
    assert _judged("relu", torch.relu, at_zero, 1.0, x) == (Verdict.SUBGRADIENT, "subgradient")  # 0 + 1: the right derivative
    verdict, _ = _judged("relu", torch.relu, at_zero, 2.0, x)  # 0 + 2: no side's derivative
    assert verdict is Verdict.LESS_ACCURATE


def test_a_gradient_wrong_where_the_op_is_smooth_stays_a_finding():
    x = torch.linspace(-2.0, 2.0, 16)
    verdict, rule = _judged("exp", torch.exp, lambda v: v > 0, 1.0, x)  # exp's gradient doubled at half the elements
    assert verdict is Verdict.LESS_ACCURATE and rule != "subgradient"
