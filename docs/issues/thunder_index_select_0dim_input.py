"""thunder.jit raises `IndexError: tuple index out of range` on `torch.index_select(x, 0, i)` of a 0-d `x`, which eager
computes (a 0-d result: eager treats a 0-d input as one element along dim 0); found by numfuzz's op-database programs
on Thunder main, thunder:torchcompile (minimised to a 0-d input and a 0-d index).

The index may be 0-d or of shape (1,); a 1-d `x` with a 0-d index works. Thunder's `index_select` is `clang.take`:
`canonicalize_dim(0, 0)` and `validate_idx(0, 0)` accept dim 0 of a 0-d tensor, then `prims.take`'s meta reads
`a.shape[dim]` of the empty shape. `index_add` and `index_copy` of a 0-d `x` fail the same way (their metas read
`shape[dim]` too). Thunder's own `take` OpInfo has no 0-d input.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise.
Under thunderfx (Dynamo first) it passes.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.tensor(2.5)
cases = {
    "index_select(x, 0, tensor(0))": (lambda a, i: torch.index_select(a, 0, i), torch.tensor(0)),
    "index_select(x, 0, tensor([0]))": (lambda a, i: torch.index_select(a, 0, i), torch.tensor([0])),
    "index_add(x, 0, tensor(0), tensor(1.0))": (lambda a, i: torch.index_add(a, 0, i, torch.tensor(1.0)), torch.tensor(0)),
    "index_copy(x, 0, tensor(0), tensor(1.0))": (lambda a, i: torch.index_copy(a, 0, i, torch.tensor(1.0)), torch.tensor(0)),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}; x = tensor(2.5), 0-d")
failed = []
for name, (fn, index) in cases.items():
    eager = fn(x, index)
    try:
        compiled = thunder.jit(fn)(x, index)
        ok = compiled.shape == eager.shape and torch.equal(compiled, eager)
        print(f"{name}: eager {eager.item()} shape {tuple(eager.shape)}, thunder {compiled.tolist()} shape {tuple(compiled.shape)}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager {eager.item()} shape {tuple(eager.shape)}, thunder.jit raises {type(exc).__name__}: {exc}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on a 0-d input: {', '.join(failed)}"
print("OK: thunder.jit computes index_select, index_add and index_copy of a 0-d input as eager does")
