"""thunder.jit fails on torch's `unbiased` overloads of `var`, `std` and `var_mean`, which eager computes: positional
`torch.std(x, True)` and `torch.var(x, 1, False)`, and the keyword in `x.var(-1, unbiased=False)`; found by numfuzz's
op-database programs (the `var.unbiased`, `std.unbiased` and `var_mean.unbiased` OpInfos) on Thunder main,
thunder:torchcompile.

Thunder's `var`, `std` and `var_mean` take `(a, dim=None, *, keepdim=False, correction=1)` only (torch's signature
since 2.0 documents `correction` and says it was `unbiased` before; the `unbiased` overloads remain, and torch's own
OpInfos test them):

* a positional bool is read as `dim`: the trace computes `prims.std(t0, (True,), correction=1)`, typed as the
  reduction over dim 1 (`f32[2]` for a (2, 3) input, where eager's `std(x, True)` is 0-d); on CPU the torch executor
  then calls `torch.std(t, True, keepdim=False, correction=1)`, which torch refuses (`TypeError: std() received an
  invalid combination of arguments`; under thunder:torchcompile Dynamo's `Unsupported: TypeError when making fake
  tensor call`); on a 0-d or 1-d input `canonicalize_dim` refuses the bool (`IndexError: Dimension out of range
  (expected to be in range of [-1, 0], but got True)`);
* a third positional argument, or the keyword `unbiased=`, is a TypeError.

`std_mean` (not a Thunder symbol: it runs as torch's) passes. Thunder's own OpInfos call these with `correction` only.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both fail alike.
Under thunderfx (Dynamo first) the keyword, the three positional arguments and a bool Thunder's `canonicalize_dim`
refuses pass (split off to torch); a bool it accepts fails as above (`std(x, True)` of a 2-d `x`, `var(x, False)`).

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.arange(6.0).reshape(2, 3)
v = torch.arange(4.0)
cases = {
    "torch.std(x, True)": (lambda t: torch.std(t, True), x),
    "torch.var_mean(v, True)[0]": (lambda t: torch.var_mean(t, True)[0], v),
    "torch.var(x, 1, False)": (lambda t: torch.var(t, 1, False), x),
    "x.var(-1, unbiased=False)": (lambda t: t.var(-1, unbiased=False), x),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (fn, a) in cases.items():
    eager = fn(a)
    try:
        got = thunder.jit(fn)(a)
        ok = got.shape == eager.shape and torch.allclose(got, eager)
        print(f"{name}: {'as eager' if ok else f'{got.tolist()} where eager gives {eager.tolist()}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives {eager.tolist()}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {len(failed)} of {len(cases)} unbiased calls: {', '.join(failed)}"
print("OK: thunder.jit computes torch's unbiased overloads of var, std and var_mean as eager does")
