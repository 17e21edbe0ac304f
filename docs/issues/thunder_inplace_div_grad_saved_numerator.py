"""Thunder: the gradient of an in-place division reads the quotient where it needs the numerator.

`a.div_(b)` on an intermediate `a` (a clone, or topk's values): Thunder functionalizes it into
`q = a / b; copy_(q, a)` and saves `a` for the backward of the division, but the `copy_` has written
the quotient into that buffer by the time the backward reads it, so d(a/b)/db comes out as -(a/b)/b**2
instead of -a/b**2. Silent: no error, the forward is right, the gradient is wrong (not rounding).

Where it shows: transformers' Mixtral router normalises its top-k weights in place
(`router_top_value /= router_top_value.sum(dim=-1, keepdim=True)`), so every Mixtral training step
under Thunder (thunderfx or thunder.jit, any executor) gets a wrong gradient for the router's weight
and the hidden states. Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac;
torch 2.11.0); eager, torch.compile and the out-of-place `top = top / top.sum(...)` are right.

Exits 1 while the bug is present.
"""

import thunder
import torch


def divide_in_place(x, y):
    return x.clone().div_(y)


def router_weights(probs):
    top, _ = torch.topk(probs, 2, dim=-1)
    top /= top.sum(dim=-1, keepdim=True)  # Mixtral's normalisation of the top-2 routing weights
    return top


def gradients(fn, *inputs):
    inputs = [t.clone().requires_grad_() for t in inputs]
    out = fn(*inputs)
    (out * torch.arange(1.0, out.shape[-1] + 1)).sum().backward()
    return [t.grad for t in inputs]


failed = []
for fn, inputs in ((divide_in_place, (torch.tensor([3.0, 1.0]), torch.tensor([2.0, 4.0]))), (router_weights, (torch.tensor([[0.5, 0.2, 0.3]]),))):
    eager, compiled = gradients(fn, *inputs), gradients(thunder.jit(fn), *inputs)
    for k, (e, c) in enumerate(zip(eager, compiled)):
        print(f"{fn.__name__}: gradient of input {k}: eager {e.tolist()}  thunder {c.tolist()}")
        if not torch.allclose(e, c):
            failed.append(f"{fn.__name__} input {k}")

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
assert not failed, f"Thunder's gradient differs from eager's: {', '.join(failed)}"
print("OK: Thunder's gradients equal eager's")
