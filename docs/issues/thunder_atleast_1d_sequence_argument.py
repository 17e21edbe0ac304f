"""thunder.jit raises `AttributeError: 'list' object has no attribute 'ndim'` on `torch.atleast_1d([x, y])` (and
`'tuple' object ...` on a tuple), which eager computes: torch documents atleast_1d's argument as a tensor or a list of
tensors, and Thunder's `atleast_1d` reads `a.ndim` of each positional argument, so the list itself. `atleast_1d(x, y)`
passes; `atleast_2d` and `atleast_3d` of a list do not raise but trace it unchanged, with its input shapes
(thunder_atleast_2d_3d_sequence_argument_shapes.py). Found by numfuzz's op-database programs (the atleast_1d OpInfo,
which samples a list; Thunder main, thunder:torchcompile).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x, y = torch.tensor(1.0), torch.tensor([2.0, 3.0])
cases = {
    "torch.atleast_1d([x, y])": lambda a, b: torch.atleast_1d([a, b]),
    "torch.atleast_1d((x, y))": lambda a, b: torch.atleast_1d((a, b)),
    "torch.atleast_1d(x, y)": lambda a, b: torch.atleast_1d(a, b),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(x, y)
    try:
        got = thunder.jit(fn)(x, y)
        ok = len(got) == len(eager) and all(torch.equal(g, e) for g, e in zip(got, eager))
        print(f"{name}: {'as eager' if ok else f'{got} where eager gives {eager}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on atleast_1d of a sequence: {', '.join(failed)}"
print("OK: thunder.jit computes torch.atleast_1d of a list or tuple of tensors as eager does")
