"""Inductor returns the input tensor itself for `x + 0.0` (a no-op the joint graph's remove_no_ops folds away), where
eager returns a new tensor: an in-place update of the result overwrites the caller's input, and a -0.0 stays -0.0
where eager's -0.0 + 0.0 is +0.0.

Upstream: pytorch#197893 (open; `x + 0`, `x * 1`, `x / 1.0` as a graph output return the input itself, reported on
2.14.0 and nightly) and, for the zero's sign, pytorch#189799 (open). Measured (CPU, AVX2): fails on torch 2.15.0;
passes on 2.9.1 and 2.11.0, which return a new tensor. Exits 0 once fixed.
"""

import torch


def f(x):
    return x + 0.0


x = torch.tensor([-0.0, 1.5])
eager, compiled = f(x), torch.compile(f)(x)
print(
    f"torch {torch.__version__}: compiled output is the input: {compiled is x}; signbit eager {torch.signbit(eager).tolist()}, compiled {torch.signbit(compiled).tolist()}"
)
assert compiled is not x and compiled.data_ptr() != x.data_ptr(), "the compiled output is the input tensor itself"
assert torch.equal(torch.signbit(compiled), torch.signbit(eager)), "-0.0 + 0.0 kept its sign"
