"""thunder.jit raises `AttributeError: Unknown attribute __rdiv__` on `x.__rdiv__(y)` (and `Unknown attribute __div__`,
`__idiv__` on `x.__div__(y)`, `x.__idiv__(y)`), which eager computes: torch.Tensor keeps these Python-2 names, and
`Tensor.__rtruediv__` *is* `Tensor.__rdiv__` (torch/_tensor.py sets `__rtruediv__ = __rdiv__`). Found by numfuzz's
op-database programs (the `__rdiv__` OpInfo) on Thunder main, thunder:torchcompile.

The operators work (`y / x` reaches `TensorProxy.__rtruediv__`); only the explicit method call fails, because the
TensorProxy has `__truediv__` and `__rtruediv__` but not the legacy names. Thunder's own `thunder.examine` maps
`__rdiv__` to `__rtruediv__` and reports the call as supported ("1 (100.0%) are supported"), then jit fails and examine
asks for an issue to be filed.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
cases = {
    "y / x": lambda a, b: b / a,
    "x.__rtruediv__(y)": lambda a, b: a.__rtruediv__(b),
    "x.__rdiv__(y)": lambda a, b: a.__rdiv__(b),
    "x.__div__(y)": lambda a, b: a.__div__(b),
    "x.clone().__idiv__(y)": lambda a, b: a.clone().__idiv__(b),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(x, y)
    try:
        ok = torch.equal(thunder.jit(fn)(x, y), eager)
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {', '.join(failed)}"
print("OK: thunder.jit computes Tensor.__rdiv__, __div__ and __idiv__ as eager does")
