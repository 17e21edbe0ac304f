"""Thunder: cross_entropy with label_smoothing, reduction="mean" and an ignored target adds the ignored rows' smoothing term.

Thunder's _cross_entropy_loss_label_smoothing masks the per-row smoothing loss (where(target != ignore_index, ...))
but its "mean" branch then sums the unmasked -log_softmax over every row, `reduced_sum = sum(out)`, and divides by the
number of kept rows. So an ignored row's smoothing term counts: the loss is larger than eager's, and the gradient of
an ignored row, exactly 0 in eager, is label_smoothing / C * (C * softmax - 1) / kept. "sum" and "none" are right (they
use the masked smooth_loss); the weighted "mean" is wrong alike (it sums the unmasked, weighted `out`).
numfuzz found it as cross_entropy(x, t, ignore_index=1, label_smoothing=0.1) of a (5, 6, 1, 6) x: the gradient of x
is nonzero (about 1e-3) where eager's is exactly 0.

Measured on CPU: Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0; torch 2.11.0), with the default executors
and with the torchcompile executor alike.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import thunder
import torch


def f(x, t):
    return torch.nn.functional.cross_entropy(x, t, ignore_index=-100, label_smoothing=0.1, reduction="mean")


x = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], requires_grad=True)
t = torch.tensor([0, -100])  # the second row is ignored
eager, jitted = f(x, t), thunder.jit(f)(x, t)
(eager_grad,) = torch.autograd.grad(eager, x)
(jitted_grad,) = torch.autograd.grad(jitted, x)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
print(f"loss: eager {eager.item():.6f}  thunder {jitted.item():.6f}")
print(f"gradient of the ignored row: eager {eager_grad[1].tolist()}  thunder {jitted_grad[1].tolist()}")
assert torch.allclose(eager, jitted), "Thunder's label-smoothed mean cross_entropy counts the ignored row"
assert torch.equal(jitted_grad[1], torch.zeros(3)), "Thunder's gradient of an ignored row is not 0"
print("OK: Thunder agrees with eager")
