"""thunder.jit raises `AttributeError: Unknown attribute H` on `x.H` and `Unknown attribute mH` on `x.mH`, the conjugate
transposes (PyTorch's `Tensor.H`, `Tensor.mH`), which eager computes; found by numfuzz's op-database programs (the
`H` OpInfo; minimised to a 0-d bf16 input, any shape of `H`'s fails) on Thunder main, thunder:torchcompile.

Thunder's TensorProxy defines `T`, `mT` and `real` as properties and has `adjoint()` (`x.mH` is `x.adjoint()`), but
not `H` or `mH`. The class is that of `Unknown attribute layout` (numfuzz's known issue for torch.masked) and of
lightning-thunder#753 (open: `_base`): a tensor attribute the proxy lacks. Of the 25 non-callable torch.Tensor
attributes that thunder.jit lacks on main (0.2.6 alike), `H` and `mH` are the two that are arithmetic; the others are
metadata or autograd state (`layout`, `itemsize`, `nbytes`, `names`, `is_sparse`, `data`, `is_leaf`, `grad_fn`, ...).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise.
Under thunderfx (Dynamo first) both pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.arange(6.0).reshape(2, 3)
cases = {
    "x.mT": lambda t: t.mT,
    "x.adjoint()": lambda t: t.adjoint(),
    "x.H": lambda t: t.H,
    "x.mH": lambda t: t.mH,
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
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {', '.join(failed)}"
print("OK: thunder.jit computes Tensor.H and Tensor.mH as eager does")
