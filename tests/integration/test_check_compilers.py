"""`numfuzz.check` with a real compiler: Inductor, named by its spec and passed as the user's own callable."""

from __future__ import annotations

import torch

import numfuzz
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.strategies import Program


def test_inductor_by_spec_and_as_a_callable_is_not_a_finding_on_a_clean_program():
    graph = Graph((TensorSpec((4, 8), "fp32"),), (Node.make("mul_scalar", [0], value=2.0), Node.make("neg", [1])), (2,))
    program = Program(graph, [[torch.linspace(-3.0, 3.0, 32).reshape(4, 8)]])
    for target in ("inductor", lambda fn: torch.compile(fn, backend="inductor", dynamic=False)):
        result = numfuzz.check(program, target)
        assert result.verdict is Verdict.EQUAL, result.explain()
        torch._dynamo.reset()
