"""thunder.jit raises `RuntimeError: polygamma(n, a) expects the first argument to be an integer.` on the method form
`x.polygamma(n)`, which eager computes (`Tensor.polygamma(n)` is `torch.polygamma(n, x)`); found by numfuzz's
op-database programs (the `polygamma` OpInfos' method variant) on Thunder main, thunder:torchcompile.

Thunder registers its `polygamma(n, a)` as the method too (`@torchsymbol(torch.polygamma, torch.special.polygamma,
is_method=True)`), so `x.polygamma(1)` binds the tensor to `n` and the order to `a`; its in-place `polygamma_(a, n)`
has the method's order. Any dtype, any order `n`: the tensor is never an integer. The function forms pass, and so does
Thunder's own OpInfo, which calls the function only.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise.
Under thunderfx (Dynamo first) it passes.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.tensor([0.5, 1.5, 3.0])
cases = {
    "torch.polygamma(1, x)": lambda t: torch.polygamma(1, t),
    "x.polygamma(1)": lambda t: t.polygamma(1),
    "x.polygamma(2)": lambda t: t.polygamma(2),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(x)
    try:
        ok = torch.allclose(thunder.jit(fn)(x), eager)
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {', '.join(failed)}"
print("OK: thunder.jit computes the method form of polygamma as eager does")
