"""thunder.jit raises `TypeError: TensorProxy.float() got an unexpected keyword argument 'memory_format'` on
`x.float(memory_format=torch.contiguous_format)` (or torch.preserve_format), which eager computes: torch documents
`Tensor.float(memory_format=torch.preserve_format)`. Thunder defines `float` as a method of TensorProxy itself (the
name would shadow the builtin in thunder.torch) taking no argument, and the registered `to_float(a)` takes none
either. Its siblings pass: `long` is a Thunder symbol with `memory_format`, and half, bfloat16, double, int, short,
char, byte, bool and cfloat fall back to torch's own methods; `x.to(dtype, memory_format=...)` passes too. Found by
numfuzz's op-database programs (the float OpInfo, `x.float(memory_format=torch.contiguous_format)` of an int64
input; Thunder main, thunder:torchcompile).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): `float` raises, every
executor; the siblings pass. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.tensor([[1, 2], [3, 4]])
cases = {
    name: (lambda method: lambda a: getattr(a, method)(memory_format=torch.contiguous_format))(name)
    for name in ("float", "half", "bfloat16", "double", "int", "long", "bool")
}
cases["float(preserve_format)"] = lambda a: a.float(memory_format=torch.preserve_format)
cases["to(float32, memory_format)"] = lambda a: a.to(torch.float32, memory_format=torch.contiguous_format)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(x)
    try:
        ok = torch.equal(thunder.jit(fn)(x), eager)
        print(f"x.{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"x.{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on x.{', x.'.join(failed)}"
print("OK: thunder.jit takes memory_format in Tensor.float as in its siblings")
