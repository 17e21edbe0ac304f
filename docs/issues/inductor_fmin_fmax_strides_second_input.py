"""Inductor's fmin and fmax of a contiguous and a transposed input return the second input's layout (found by numfuzz's metadata oracle, torch 2.15.0).

Eager follows TensorIterator's rule, the first input whose strides order the dims decides: fmin(a, b) of a contiguous
(2, 2) `a` and a transposed `b` has strides (2, 1), and so do meta and aot_eager. Compiled it has (1, 2), so a flat view
fails; inside the compiled function `fmin(a, b).view(-1)` fails to compile ("Cannot view a tensor with shape
torch.Size([2, 2]) and strides (1, 2) as a tensor with shape (4,)!"). Swapping the inputs swaps the layouts: compiled
always takes the second's. Inductor decomposes fmin to `torch.where(torch.isnan(other) | (other > self), self, other)`
(fmax alike, torch/_inductor/decomposition.py), whose condition, and so whose result, takes `other`'s layout;
minimum and maximum, lowered directly, keep eager's. Fails on torch 2.9.1 and 2.15.0.
The mechanism of pytorch#198364's `put` (an Inductor decomposition); fmin and fmax are not listed there.
"""

import torch

a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
b = torch.tensor([[4.0, 3.0], [2.0, 1.0]]).t()  # strides (1, 2)


def fmin(x, y):
    return torch.fmin(x, y)


def fmax(x, y):
    return torch.fmax(x, y)


wrong = []
for f in (fmin, fmax):
    torch._dynamo.reset()
    eager, compiled = f(a, b), torch.compile(f)(a, b)
    print(torch.__version__, f.__name__, "eager", eager.stride(), "compiled", compiled.stride())
    if compiled.stride() != eager.stride():
        wrong.append(f"{f.__name__}: compiled strides {compiled.stride()}, eager {eager.stride()}")
assert not wrong, "; ".join(wrong)
