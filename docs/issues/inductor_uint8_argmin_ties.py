"""Inductor's CPU argmin of eight uint8 values with ties (found by numfuzz's integer programs, torch 2.15.0, AVX2).

Eager gives 2, the first minimum. Compiled: 0 on torch 2.9.1, an index far past the tensor on 2.15.0.
Kin of pytorch#191499 (short uint8/int8 amin, min and argmin return 0 and -1).
"""

import torch

x = torch.tensor([2, 2, 1, 1, 2, 2, 1, 1], dtype=torch.uint8)


def f(t):
    return torch.argmin(t)


eager, compiled = f(x).item(), torch.compile(f)(x).item()
print(torch.__version__, "eager", eager, "compiled", compiled)
assert compiled == eager, f"compiled argmin {compiled}, eager {eager}"
