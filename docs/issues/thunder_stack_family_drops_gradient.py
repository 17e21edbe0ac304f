"""thunder.jit: torch.dstack, hstack, vstack and column_stack return a result with no gradient (no grad_fn).

These ops are auto-registered (thunder/torch/default_torch_ops.py) and take their tensors as one list. With inputs
that require grad, Thunder's grad transform gives the list's tensors no gradient (the traced gradient of the input is
None), so no backward is built and the output comes back without a grad_fn: `torch.autograd.grad` raises "element 0
of tensors does not require grad", and in a larger program (`dstack(...) * 2`, a loss) the gradient through these
ops is silently missing. torch.cat and torch.stack, registered by hand, and auto-registered ops whose tensors are
separate arguments (block_diag) keep their gradient.

Found by numfuzz's op-database programs as the gradient of `torch.dstack((x0, x0, x0))` (fp32; numfuzz counts the
missing gradient as 0, 8e6 ULP from eager's) through Thunder's torchcompile executor. Fails on Thunder 0.2.6
(torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0), with the default executors and with torchcompile's.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import thunder
import torch

ops = {"dstack": torch.dstack, "hstack": torch.hstack, "vstack": torch.vstack, "column_stack": torch.column_stack}


def program(op):
    return lambda a: op([a, a * 3])


failed = []
for name, op in ops.items():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = thunder.jit(program(op))(x)
    print(f"thunder {thunder.__version__}: {name}([x, x * 3]).requires_grad = {out.requires_grad}", end="")
    if out.requires_grad:
        (grad,) = torch.autograd.grad(out.sum(), x)
        print(f", gradient {grad.tolist()} (eager: [4.0, 4.0])")
        ok = grad.tolist() == [4.0, 4.0]
    else:
        print(" (eager: True)")
        ok = False
    if not ok:
        failed.append(name)

assert not failed, f"thunder.jit drops the gradient of {', '.join(failed)}"
print("OK: the gradients are eager's")
