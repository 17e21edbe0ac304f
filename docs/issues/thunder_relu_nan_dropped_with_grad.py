"""thunder.jit's relu returns 0 for a NaN input that requires grad, where eager returns NaN (and does without grad):
the NaN is dropped from the training forward, silently. Without requires_grad Thunder's relu keeps the NaN.

Found by numfuzz's quick start (seed 0, a gradient case, fp16). Eager has propagated NaN through relu since
pytorch#7999 (2018); no Thunder report found (searched its issues for relu, NaN, requires_grad). Fails on Thunder 0.2.6
(torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0), with its default executors and with torchcompile's.
Exits 0 once fixed.
"""

import thunder
import torch


def f(x):
    return torch.relu(x)


for requires_grad in (False, True):
    x = torch.tensor([float("nan"), -1.0, 2.0], requires_grad=requires_grad)
    eager, compiled = f(x), thunder.jit(f)(x)
    print(f"thunder {thunder.__version__}, requires_grad={requires_grad}: eager {eager.tolist()}, thunder {compiled.tolist()}")
    assert torch.isnan(compiled[0]), f"relu(NaN) is {compiled[0].item()} under thunder.jit with requires_grad={requires_grad}"
