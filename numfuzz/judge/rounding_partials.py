"""Partial derivatives of the culprit op for its rounding error (`judge.rounding_error`), in float64: by autograd of the
op's float64 reference, or by forward differences where autograd has none (torch marks the special polynomials
non-differentiable)."""

from __future__ import annotations

import torch


def as_float64(x: torch.Tensor) -> torch.Tensor:
    """An input as the float64 reference takes it, on the CPU: a float in float64, an integer or bool as it is."""
    return x.detach().to("cpu", torch.float64) if x.is_floating_point() else x.detach().to("cpu")


def leaf(x: torch.Tensor) -> torch.Tensor:
    """A float input as a leaf autograd differentiates by; an integer or bool input has no derivative and stays as it is."""
    return x.requires_grad_(True) if x.is_floating_point() else x


NOT_DIFFERENTIABLE = "is not differentiable with respect to argument"  # torch refuses such an argument as a leaf


def with_leaves(fn, xs: list[torch.Tensor]) -> tuple[list, list[torch.Tensor]]:
    """fn's outputs at copies of xs with each float input a leaf (`leaf`), and those copies; an input the op refuses to
    differentiate by (instance_norm's and batch_norm's running_mean and running_var: "The function 'native_batch_norm'
    is not differentiable with respect to argument 'running_mean'") is left as it is, with no partial derivative."""
    try:
        leaves = [leaf(x.detach().clone()) for x in xs]
        return fn(*leaves), leaves
    except RuntimeError as e:
        if NOT_DIFFERENTIABLE not in str(e):
            raise
    wanted = []
    for i, x in enumerate(xs):
        if not x.is_floating_point():
            wanted.append(False)
            continue
        try:
            fn(*[y.detach().clone().requires_grad_(k == i) if y.is_floating_point() else y for k, y in enumerate(xs)])
            wanted.append(True)
        except RuntimeError as e:
            if NOT_DIFFERENTIABLE not in str(e):
                raise
            wanted.append(False)
    leaves = [leaf(x.detach().clone()) if want else x.detach().clone() for x, want in zip(xs, wanted)]
    return fn(*leaves), leaves


def partials_of(y: torch.Tensor, xs: list[torch.Tensor]) -> list[torch.Tensor | None]:
    """dy/dx for each input that is a leaf (`leaf`); None for the others and where y does not depend on it."""
    floats = [x for x in xs if x.requires_grad]
    found = iter(torch.autograd.grad(y, floats, allow_unused=True) if floats else ())
    return [next(found) if x.requires_grad else None for x in xs]


def partials_or_differences(y: torch.Tensor, xs: list[torch.Tensor], differences, *args) -> list[torch.Tensor | None]:
    """`partials_of(y, xs)` where autograd differentiates the op, else `differences(*args)` (forward differences): where y
    does not require grad (torch marks the special polynomials non-differentiable), and where its derivative is a
    NotImplemented node, raising "derivative for aten::floor_divide is not implemented" when asked for."""
    if y.requires_grad:
        try:
            return partials_of(y, xs)
        except RuntimeError as e:
            if "is not implemented" not in str(e):
                raise
    return differences(*args)


DIFFERENCE_STEP = 2.0**-26  # relative: about the square root of float64's epsilon


def difference_partials(fn, out: int, xs: list[torch.Tensor], y: torch.Tensor) -> list[torch.Tensor | None]:
    """dy/dx of a pointwise op by forward differences in float64, each float input moved up by DIFFERENCE_STEP of itself
    (each element has its own copy of every input, so one move per input gives every element's partial), for an op
    autograd cannot differentiate. Forward, not central: an argument the kernel truncates to an integer (a polynomial's
    degree n) has derivative 0 at an integral value, where a central step would straddle the jump."""
    found = []
    with torch.no_grad():
        for i, x in enumerate(xs):
            if not x.is_floating_point():
                found.append(None)
                continue
            h = torch.where(x == 0, DIFFERENCE_STEP, x.abs() * DIFFERENCE_STEP).detach()
            h = (x.detach() + h) - x.detach()  # the step as float64 represents it
            moved = [x.detach() + h if k == i else other.detach() for k, other in enumerate(xs)]
            found.append((fn(*moved)[out] - y) / h)
    return found


DIFFERENCE_MOVES = 4096  # input elements moved one at a time for one output element, at most


def element_difference_partials(fn, out: int, xs: list[torch.Tensor], j: int, yj: float) -> list[torch.Tensor | None]:
    """d y[j] / dx of any op by forward differences (`difference_partials`), one input element moved at a time."""
    if sum(x.numel() for x in xs if x.is_floating_point()) > DIFFERENCE_MOVES:
        raise RuntimeError(f"autograd has no derivative for the op, and its inputs exceed {DIFFERENCE_MOVES} elements to move one by one")
    found = []
    with torch.no_grad():
        for i, x in enumerate(xs):
            if not x.is_floating_point():
                found.append(None)
                continue
            flat, partial = x.detach().reshape(-1), torch.zeros(x.numel(), dtype=torch.float64)
            for e in range(flat.numel()):
                step = DIFFERENCE_STEP if flat[e] == 0 else abs(float(flat[e])) * DIFFERENCE_STEP
                bumped = flat.clone()
                bumped[e] += step
                h = float(bumped[e] - flat[e])
                moved = [bumped.reshape(x.shape) if k == i else other.detach() for k, other in enumerate(xs)]
                partial[e] = (float(fn(*moved)[out].reshape(-1)[j]) - yj) / h
            found.append(partial.reshape(x.shape))
    return found
