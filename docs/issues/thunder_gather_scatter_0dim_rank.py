"""thunder.jit raises `RuntimeError: Expected index (rank=1) to have the same rank as a (rank=0)` on
`torch.gather(x, 0, i)` of a 0-d `x` and an `i` of shape (1,), which eager computes (shape (1,)); a 1-d `x` with a 0-d
`i` alike (eager: a 0-d result); found by numfuzz's op-database programs on Thunder main, thunder:torchcompile
(minimised to a 0-d fp16 input and an int64 index of shape (1,)).

ATen counts a 0-d tensor as 1-d in gather and scatter's shape checks (pytorch#134244, open, asks that the message say
so). Thunder's `gather`, `scatter` and `scatter_add` prims' metas require `index.ndim == a.ndim` exactly, so the
mismatch raises while tracing, under every executor; `scatter` and `scatter_add` of a 0-d `x` (or a 0-d index) raise
the same message. Both operands 0-d works. `take_along_dim` does not count: eager refuses a rank mismatch there too.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise.
Under thunderfx (Dynamo first) it passes.

Exits 1 while the bug is present.
"""

import thunder
import torch

x0, x1 = torch.tensor(2.5), torch.tensor([2.5, 3.5])
i0, i1 = torch.tensor(0), torch.tensor([0])
src = torch.tensor([1.0])
cases = {
    "gather(tensor(2.5), 0, tensor([0]))": (lambda a, i: torch.gather(a, 0, i), x0, i1),
    "gather(tensor([2.5, 3.5]), 0, tensor(0))": (lambda a, i: torch.gather(a, 0, i), x1, i0),
    "tensor(2.5).gather(0, tensor([0]))": (lambda a, i: a.gather(0, i), x0, i1),
    "scatter_add(tensor(2.5), 0, tensor([0]), tensor([1.0]))": (lambda a, i: torch.scatter_add(a, 0, i, src), x0, i1),
    "scatter(tensor(2.5), 0, tensor([0]), tensor([1.0]))": (lambda a, i: torch.scatter(a, 0, i, src), x0, i1),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (fn, a, index) in cases.items():
    eager = fn(a, index)
    try:
        compiled = thunder.jit(fn)(a, index)
        ok = compiled.shape == eager.shape and torch.equal(compiled, eager)
        print(f"{name}: eager {eager.tolist()} shape {tuple(eager.shape)}, thunder {compiled.tolist()} shape {tuple(compiled.shape)}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager {eager.tolist()} shape {tuple(eager.shape)}, thunder.jit raises {type(exc).__name__}: {exc}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails where eager counts a 0-d operand as 1-d: {', '.join(failed)}"
print("OK: thunder.jit computes gather, scatter and scatter_add with a 0-d operand as eager does")
