"""Thunder: the gradient of torch.addcmul's tensor2 (and tensor1) is NaN or inf where eager's is finite.

Thunder has no grad rule for addcmul: it differentiates its decomposition `input + value * (tensor1 * tensor2)`,
so the gradient of tensor2 is `(g * value) * tensor1`. Where `g * value` overflows (g = 1e10, value = 1e30) the
result is inf * 0 = NaN where tensor1 is 0, and inf where the exact gradient is finite (tensor1 = 1e-30: exactly
1e10). Eager's addcmul backward scales tensor1 first, `g * (tensor1 * value)`, and gives 0 and 1e10.
numfuzz found it as `digamma(addcmul(x, y, x, value=3.4e38))`: the gradient of x is NaN under thunder.jit.

Measured on CPU: Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0), with the
default executors and with the torchcompile executor alike; torch.compile (Inductor, torch 2.9.1, 2.11.0 and
2.15.0) agrees with eager. Kin of lightning-thunder#1892 (sigmoid's generated backward, inf times 0).

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import thunder
import torch


def f(a, b, c):
    return torch.addcmul(a, b, c, value=1e30)


def gradients(fn):
    inputs = [torch.zeros(2), torch.tensor([0.0, 1e-30]), torch.tensor([1.0, 1.0])]
    inputs = [t.requires_grad_() for t in inputs]
    return torch.autograd.grad(fn(*inputs), inputs, torch.tensor([1e10, 1e10]))


eager, compiled = gradients(f), gradients(thunder.jit(f))
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
print(f"gradient of tensor2: eager {eager[2].tolist()}  thunder {compiled[2].tolist()}")  # exact: [0, 1e10]
assert torch.equal(eager[2], compiled[2]), "Thunder's gradient of addcmul's tensor2 differs from eager's (finite) one"
print("OK: Thunder's gradient equals eager's")
