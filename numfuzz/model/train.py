"""A training step judged: the loss and the gradients of every parameter and float input, eager and compiled, against the float64 reference's.

The step is the model's forward and its loss, one program (`loss_step`), so the compiler sees
what a training loop gives it; the gradients come from autograd through each side. The float64
reference takes its gradients through the captured graphs run in float64 with the model's casts
rounding (a cast's gradient passes through it, in the cast's dtype, as eager's does), with respect
to float64 leaves that stand for the model's parameters (`reference.Reference.leaves`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
from torch.utils._pytree import tree_flatten

from numfuzz.judge.refusal import own_code
from numfuzz.model.reference import float64_program
from numfuzz.model.state import GlobalState, buffers_kept, state_noted
from numfuzz.model.verdict import Judged, crashed, run_target
from numfuzz.targets import Target


def mean_square_loss(output: Any) -> torch.Tensor:
    """The loss a model without one gets: the mean square of its floating outputs, taken in fp32 (as `logits.float()`)."""
    if hasattr(output, "to_tuple"):  # transformers' ModelOutput
        output = output.to_tuple()
    leaves, _ = tree_flatten(output)
    return sum(leaf.float().pow(2).mean() for leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.is_floating_point())


class LossStep(torch.nn.Module):
    """The program a training step compiles: the model, then its loss. A module, so a target is given it as a user gives
    a model whose forward returns its loss (thunder.jit of a module takes its buffers' reassignment)."""

    def __init__(self, model: torch.nn.Module, loss: Callable[[Any], torch.Tensor] | None):
        super().__init__()
        self.model = model
        self.loss = loss or mean_square_loss

    def forward(self, *inputs: Any) -> torch.Tensor:
        return self.loss(self.model(*inputs))


def loss_step(model: torch.nn.Module, loss: Callable[[Any], torch.Tensor] | None) -> LossStep:
    """The program a training step compiles: the model, then its loss."""
    return LossStep(model, loss)


def _grads(loss: torch.Tensor, wrt: list[torch.Tensor]) -> list[torch.Tensor]:
    found = torch.autograd.grad(loss, wrt, allow_unused=True)
    return [torch.zeros_like(w) if g is None else g.detach() for g, w in zip(found, wrt)]


def float_inputs(row: list[Any]) -> list[int]:
    """The positions of a row's float tensors: the inputs whose gradients a step judges too."""
    return [k for k, x in enumerate(row) if isinstance(x, torch.Tensor) and x.is_floating_point()]


def _with_leaves(row: list[Any]) -> list[Any]:
    """The row with each float input a fresh leaf that requires its gradient (each side gets its own)."""
    return [x.detach().clone().requires_grad_() if k in float_inputs(row) else x for k, x in enumerate(row)]


def step_runs(step: Callable, params: list[torch.Tensor], rows: list[list[Any]], states: list[GlobalState] | None = None) -> list[list[torch.Tensor]]:
    """Per row: the loss, then each parameter's gradient and each float input's, as `step` computes them (eager, or a
    compiled step); the global modes each step left are appended to `states` where given, and set back (`model.state`)."""
    runs = []
    for row in rows:
        row = _with_leaves(row)
        with buffers_kept(step), state_noted(states):
            loss = step(*row)
        runs.append([loss.detach(), *_grads(loss, params + [row[k] for k in float_inputs(row)])])
    return runs


def reference_step_runs(step: Callable, params: list[torch.Tensor], rows: list[list[Any]], casts_round: bool = True) -> tuple[list[list[torch.Tensor]], Any]:
    """The float64 reference's loss and gradients per row (with `casts_round` off, the model's casts as no-ops), and the
    capture's record. A parameter the captured graphs did not take as an input gets the exact gradient 0 where the step
    does not use it at all (a head the loss never reads: eager's gradient is None too); one used but not lifted gets no
    leaf: ValueError, said in one line."""
    reference_fn, capture = float64_program(step, casts_round, grad=True)
    runs = []
    try:
        for row in rows:
            capture.leaves.clear()
            row = _with_leaves(row)
            with buffers_kept(step):
                loss = reference_fn(*row)
            wrt = params + [row[k] for k in float_inputs(row)]
            missing = [p for p in wrt if id(p) not in capture.leaves]
            if missing and not _unused(step, row, missing):
                raise ValueError(f"{len(missing)} parameters or inputs are not inputs of the captured graphs: their float64 gradients cannot be taken")
            found = _grads(loss, [capture.leaves[id(p)] for p in wrt if id(p) in capture.leaves])
            exact = iter(found)
            runs.append([loss.detach(), *(next(exact) if id(p) in capture.leaves else torch.zeros_like(p, dtype=torch.float64) for p in wrt)])
    finally:
        torch._dynamo.reset()
    return runs, capture


def _unused(step: Callable, row: list[Any], tensors: list[torch.Tensor]) -> bool:
    """Whether the step's loss, run in eager on `row` (whose float inputs are leaves), depends on none of `tensors`
    (autograd finds no path to any of them)."""
    with torch.enable_grad(), buffers_kept(step):
        loss = step(*row)
        return all(g is None for g in torch.autograd.grad(loss, tensors, allow_unused=True))


def target_step_runs(
    target: Target, step: Callable, params: list[torch.Tensor], rows: list[list[Any]], device: str, states: list[GlobalState] | None = None
) -> list[list[torch.Tensor]] | Judged:
    """The compiled step's loss and gradients per row, or the crash it is (`verdict.crashed`: the first row compiles,
    forward and backward); the global modes each step left are appended to `states` where given."""
    target.reset()
    try:
        try:
            compiled = target.prepare(step, device)
        except Exception as exc:  # the target's failure is the finding, never numfuzz's
            return crashed(exc, first_call=True, own=own_code(target))
        return run_target(lambda row: step_runs(compiled, params, [row], states)[0], rows, own_code(target))
    finally:
        target.reset()
