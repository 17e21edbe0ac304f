"""A traced case's compiler lines are those its calls into the target ran (the compile, the compiled forward and the
backward through it), not those of the eager and float64 runs around them."""

from __future__ import annotations

import inspect

import torch
import torch._refs as refs
from helpers import StandIn

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.workers.compiler_reach import LineTracer
from numfuzz.workers.timed_target import TimedTarget


class _CompiledLater(torch.autograd.Function):
    """Stands for a compile whose backward is compiled at its first call (AOTAutograd's lazy backward)."""

    @staticmethod
    def forward(ctx, x):
        return refs.sin(x)  # the compiler's code in the forward

    @staticmethod
    def backward(ctx, g):
        return refs.cos(g)  # and in the backward


def _body(fn) -> set[int]:
    lines, first = inspect.getsourcelines(inspect.unwrap(fn))
    return set(range(first + 1, first + len(lines)))


def _reached(lines: dict[str, list[int]], fn) -> bool:
    return bool(_body(fn) & set(lines.get("torch/_refs/__init__.py", ())))


def test_the_tracer_measures_calls_into_the_target_forward_and_backward_and_nothing_around_them():
    tracer = LineTracer()
    timed = TimedTarget(StandIn(_CompiledLater.apply))
    timed.trace_with(tracer.tracing)
    program = CompiledProgram(Graph((TensorSpec((4,), "fp32"),), (Node.make("sin", [0]),), (1,)), timed, "cpu", grad=True)
    x, g = torch.tensor([0.5, 1.0, 2.0, 3.0]), torch.ones(4)
    refs.tan(x)  # numfuzz's own work around the case: not the compiler's
    program.run_grads([x], [g])
    lines = tracer.new_lines()
    assert _reached(lines, refs.sin) and _reached(lines, refs.cos) and not _reached(lines, refs.tan)


def test_nested_tracing_stops_only_at_the_outermost_exit():
    tracer = LineTracer()
    with tracer.tracing():
        with tracer.tracing():
            refs.sin(torch.ones(2))
        refs.cos(torch.ones(2))  # still inside the outer block
    refs.tan(torch.ones(2))
    lines = tracer.new_lines()
    assert _reached(lines, refs.sin) and _reached(lines, refs.cos) and not _reached(lines, refs.tan)
