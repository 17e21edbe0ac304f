"""A compiled call that leaves PyTorch's global modes other than eager's same call is a `state` finding, named by the
mode; the modes are set back after every call, so the judging after it, and the next model, start as before.

The planted compilers are small broken targets: Thunder's jit, after a cache hit, leaves grad mode as it found it, not
as the function leaves it (docs/issues/thunder_grad_mode_after_cache_hit_is_the_entry_mode.py)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from numfuzz.judge.verdicts import Verdict
from numfuzz.model.check import check_model


class Tiny(torch.nn.Module):
    def __init__(self, sets_default_dtype: bool = False):
        super().__init__()
        self.linear = torch.nn.Linear(8, 4)
        self.sets_default_dtype = sets_default_dtype

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.tanh(self.linear(x))
        if self.sets_default_dtype:  # the model's own doing: eager leaves it so too
            torch.set_default_dtype(torch.float64)
        return out


def _inputs() -> tuple[torch.Tensor]:
    torch.manual_seed(0)
    return (torch.randn(3, 8),)


def _grad_off_after_a_cache_hit(fn: Callable) -> Callable:
    calls = []

    def run(*args):
        out = fn(*args)
        calls.append(1)
        if len(calls) > 1:
            torch.set_grad_enabled(False)
        return out

    return run


def _default_dtype_float64(fn: Callable) -> Callable:
    def run(*args):
        out = fn(*args)
        torch.set_default_dtype(torch.float64)
        return out

    return run


def _as_is(fn: Callable) -> Callable:
    return fn


def test_a_training_step_that_leaves_grad_mode_off_after_its_second_call_is_a_state_finding():
    torch.manual_seed(0)
    result = check_model(Tiny(), _inputs(), _grad_off_after_a_cache_hit, samples=2, train=True)
    assert result.verdict is Verdict.STATE and result.is_finding, result.detail
    assert result.detail == "after call 2, the compiled model leaves grad mode off where eager leaves it on"
    assert torch.is_grad_enabled()


def test_a_forward_that_changes_the_default_dtype_is_a_state_finding_and_the_dtype_is_set_back():
    torch.manual_seed(0)
    result = check_model(Tiny(), _inputs(), _default_dtype_float64, samples=2, modules=False, partings=False)
    assert result.verdict is Verdict.STATE
    assert "the default dtype float64 where eager leaves it float32" in result.detail and "after call 1" in result.detail
    assert torch.get_default_dtype() is torch.float32


def test_a_mode_the_model_itself_sets_is_no_finding_when_the_compiled_model_sets_it_alike():
    torch.manual_seed(0)
    result = check_model(Tiny(sets_default_dtype=True), _inputs(), _as_is, samples=2, modules=False, partings=False)
    assert result.verdict is Verdict.EQUAL, result.detail
    assert torch.get_default_dtype() is torch.float32
