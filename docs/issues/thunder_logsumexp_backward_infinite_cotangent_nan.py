"""thunder.jit's gradient of `torch.logsumexp` is NaN where eager's is +-inf: for an infinite upstream gradient
(cotangent), eager's backward, grad * exp(x - result), gives +-inf at every element; Thunder differentiates its own
decomposition, `log(sum(exp(a - m))) + m` with `m = where(|amax(a)| == inf, 0, amax(a))`, so the gradient also flows
through `m`, whose two paths cancel (`g * 1 - g * sum(softmax)`): inf - inf is NaN. Finite upstream gradients, however
large (3e38), agree with eager. The torch and torchcompile executors alike (the decomposition is Thunder's).

Found by numfuzz (a Thunder-main campaign with gradients, thunder:torchcompile, seed 1101: logsumexp over a dim of size
1, then pow(t, -1) of a zero, whose gradient is -inf). The same class as lightning-thunder#1892 (open: a generated
sigmoid backward computing NaN for large negative inputs), for another op.

Exits 1 while the bug is present.
"""

import thunder
import torch
from thunder.extend import get_executor

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.tensor([[0.0, -1.0], [0.5, 2.0]])
failed = []
for upstream in (float("-inf"), float("inf"), 3e38):
    g = torch.full((2,), upstream)
    a = x.clone().requires_grad_()
    torch.logsumexp(a, 1).backward(g)
    for executor in ("torch", "torchcompile"):
        b = x.clone().requires_grad_()
        thunder.jit(lambda t: torch.logsumexp(t, 1), executors=[get_executor(executor)])(b).backward(g)
        print(f"upstream {upstream:g}, {executor:>12} executor: eager {a.grad.flatten().tolist()}, thunder {b.grad.flatten().tolist()}")
        if not torch.allclose(b.grad, a.grad):  # equal infinities are close; NaN is close to nothing
            failed.append((upstream, executor))
assert not failed, f"Thunder's logsumexp gradient differs from eager's for {failed}"
print("OK: Thunder's logsumexp gradient is eager's")
