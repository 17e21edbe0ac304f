"""thunder.jit raises `AttributeError: Unknown attribute fill_` on `x.fill_(v)` (Tensor.fill_, the in-place fill), and
`NotImplementedError: Trying to call function torch.fill, but it is not yet supported` on `torch.fill(x, v)`, which
eager computes: Thunder has `zero_` (PR #1666) and `masked_fill_` but no fill symbol. `torch.fill` is refused by name
(a missing op Thunder asks an issue for); the method fails as an unknown attribute. Found by numfuzz's op-database
programs (the randn_like-then-fill_ OpInfo, `torch.randn_like(x).fill_(0)`; Thunder main, thunder:torchcompile).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the op is missing.
"""

import thunder
import torch

x = torch.tensor([1.0, 2.0])
cases = {
    "x.clone().fill_(0)": lambda a: a.clone().fill_(0),
    "torch.randn_like(x).fill_(0)": lambda a: torch.randn_like(a).fill_(0),
    "torch.fill(x, 0)": lambda a: torch.fill(a, 0),
    "x.clone().zero_()": lambda a: a.clone().zero_(),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(x)
    try:
        ok = torch.equal(thunder.jit(fn)(x), eager)
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {', '.join(failed)}"
print("OK: thunder.jit computes Tensor.fill_ and torch.fill as eager does")
