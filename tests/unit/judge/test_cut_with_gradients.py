"""A forward difference that a compiler makes only when inputs require gradients is located with them.

Thunder lowers `sdpa` through its own decomposition when the inputs require gradients (and hands
it to ATen when they do not): the forward of `lgamma -> sdpa` is NaN in fully masked rows only
with gradients. A probe or a cut compiled without gradients then no longer shows the finding,
and the culprit fell back to the cone's first op (`lgamma`). Cutting compiles with the case's
upstream gradients, so the culprit is the op whose lowering differs.
"""

from __future__ import annotations

import torch
from mode_target import ModeTarget
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register


class _TanhInBf16UnderGrad(TorchFunctionMode):
    """tanh's value in bf16 whenever its input requires a gradient (a lowering chosen for training); its gradient eager's."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.tanh and args[0].requires_grad:
            exact = torch.tanh(args[0])
            return exact + (torch.tanh(args[0].detach().to(torch.bfloat16)).to(exact.dtype) - exact.detach())
        return func(*args, **(kwargs or {}))


register("tanh_bf16_under_grad", lambda arg: ModeTarget("tanh_bf16_under_grad", _TanhInBf16UnderGrad), "eager with tanh in bf16 under gradients (tests only)")


def test_a_forward_difference_made_only_under_gradients_is_located_at_its_op():
    graph = Graph((TensorSpec((64,), "fp32"),), (Node.make("exp", [0]), Node.make("tanh", [1])), (2,))
    x = torch.linspace(-3.0, -0.5, 64)
    upstream = [[torch.linspace(0.5, 1.5, 64)]]
    case = Case.from_tensors(graph, [[x]], RunSpec("tanh_bf16_under_grad", "cpu", samples=1, grad=True), upstream)
    outcome = run_case(case, ModeTarget("tanh_bf16_under_grad", _TanhInBf16UnderGrad))
    assert outcome.oracle is Verdict.LESS_ACCURATE and outcome.analysis.output == 0  # the forward output
    assert outcome.analysis.op == "tanh" and outcome.analysis.culprit.located == "cutting", outcome.analysis
