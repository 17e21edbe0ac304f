"""`judge_parts` adds a forward's modules judged alone to a whole-model result without compiling the whole model again,
and gives the same module table as `check_model` with `modules`."""

from __future__ import annotations

from collections.abc import Callable

import torch

from numfuzz.model.check import check_model, judge_parts


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(8, 16)
        self.down = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.tanh(self.up(x)))


class Counting:
    """A compiler that rounds every result to bf16 (so each module is less accurate than eager) and counts what it compiles."""

    def __init__(self):
        self.compiled = 0

    def __call__(self, fn: Callable) -> Callable:
        self.compiled += 1

        def run(*args, **kwargs):
            out = fn(*args, **kwargs)
            return out.to(torch.bfloat16).to(out.dtype)

        return run


def _model() -> tuple[torch.nn.Module, tuple]:
    torch.manual_seed(0)
    return Block(), (torch.randn(4, 8),)


def test_judge_parts_judges_only_the_modules_and_agrees_with_check_model():
    model, inputs = _model()
    whole_at_once = Counting()
    expected = check_model(model, inputs, whole_at_once, samples=2, modules=True, partings=False)
    model, inputs = _model()
    in_two = Counting()
    first = check_model(model, inputs, in_two, samples=2, modules=False, partings=False, locate=False)
    assert in_two.compiled == 1 and not first.modules
    result = judge_parts(first, model, inputs, in_two, partings=False)
    assert result is first and in_two.compiled == whole_at_once.compiled  # the modules' compiles only: the whole model not again
    assert [(m.path, m.verdict) for m in result.modules] == [(m.path, m.verdict) for m in expected.modules]
    assert {m.verdict.value for m in result.modules} >= {"less_accurate"} and result.verdict == expected.verdict


def test_judge_parts_without_locate_compiles_the_modules_only():
    """A sweep's cell whose whole model crashed judges its modules alone, not the region where they part (an accuracy question)."""
    model, inputs = _model()
    compiler = Counting()
    first = check_model(model, inputs, compiler, samples=2, modules=False, partings=False, locate=False)
    result = judge_parts(first, model, inputs, compiler, partings=False, locate=False)
    assert result.is_finding and result.region_check is None and not result.unextracted
    assert compiler.compiled == 1 + len(result.modules)  # the whole model once, each module once, nothing else
