"""thunder.jit fails on every `torch.masked` op tried (`torch.masked.sum`, `amax`, `cumprod`, `normalize`, `mean`, ...),
which eager computes; found by numfuzz's op-database programs (the `masked.*` OpInfos) on Thunder main, thunder:torchcompile.

`torch.masked`'s functions are Python: thunder.jit traces into them, and they read what Thunder's proxies lack:

* `if input.layout == torch.sparse_csr:` (torch/masked/_ops.py): a TensorProxy has no `layout`,
  `AttributeError: Unknown attribute layout`, in 16 of the 19 tried (sum, prod, amax, amin, argmax, argmin,
  cumsum, cumprod, norm, normalize, logsumexp, median, softmax, log_softmax, softmin, logaddexp);
* `mean`, `var` and `std` stop earlier, at `dtype.is_floating_point` of `dtype = input.dtype`: Thunder's dtype
  (thunder.dtypes.float32) has no `is_floating_point`, `AttributeError: is_floating_point`.

Eager gives each reduction over the unmasked elements (without a mask, the plain reduction). Every TensorProxy is
strided, so `layout` could be `torch.strided`. With both attributes patched in, amax passes and the others fail one
step later, at run time: they call `torch.sum(..., dtype=input.dtype)` (or cumprod, vector_norm), and the torch
executor hands Thunder's dtype to torch (`sum() received an invalid combination of arguments - got (..., dtype=floating)`);
`torch.sum(x, 0, dtype=x.dtype)` alone fails so. Kin of lightning-thunder#2306 (open: a traced tensor's `.dtype` is
Thunder's, not torch's) and of the other `Unknown attribute` reports (#753, `_base`).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both fail alike.
Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.arange(12.0).reshape(3, 4) / 7
mask = torch.tensor([[True, False, True, True]] * 3)
cases = {
    "masked.sum(x, 0, mask=mask)": lambda t: torch.masked.sum(t, 0, mask=mask),
    "masked.amax(x, 0)": lambda t: torch.masked.amax(t, 0),
    "masked.cumprod(x, 0)": lambda t: torch.masked.cumprod(t, 0),
    "masked.normalize(x, 2.0, 0)": lambda t: torch.masked.normalize(t, 2.0, 0),
    "masked.mean(x, 0)": lambda t: torch.masked.mean(t, 0),
    "masked.var(x, 0)": lambda t: torch.masked.var(t, 0),
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
assert not failed, f"thunder.jit fails on {len(failed)} of {len(cases)} masked reductions: {', '.join(failed)}"
print("OK: thunder.jit computes torch.masked's reductions as eager does")
