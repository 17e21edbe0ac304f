"""thunder.jit raises `ValueError: Element 0 ([<TensorProxy ...>, <TensorProxy ...>]) had an unexpected type <class
'list'>` on `torch.einsum(equation, [a, b])`, the operands passed as one list, which torch documents (`operands
(List[Tensor])`) and eager computes: Thunder's einsum takes the operands as separate arguments only. Found by numfuzz's
op-database programs (the einsum OpInfo, whose samples pass a list; the quick start, Thunder 0.2.6, thunder:torchcompile;
minimised to `torch.einsum('ij,kj->ik', [x, x])` of an int64 (1, 1) x).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): the list and the tuple
forms raise, every executor; the operands as separate arguments pass. No upstream report found (searched Thunder's
issues for einsum, a list of operands and the message).

Exits 1 while the bug is present.
"""

import thunder
import torch

a, b = torch.randn(2, 3), torch.randn(3, 4)
cases = {
    "torch.einsum('ij,jk->ik', [a, b])": lambda x, y: torch.einsum("ij,jk->ik", [x, y]),
    "torch.einsum('ij,jk->ik', (a, b))": lambda x, y: torch.einsum("ij,jk->ik", (x, y)),
    "torch.einsum('ij,jk->ik', a, b)": lambda x, y: torch.einsum("ij,jk->ik", x, y),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn(a, b)
    try:
        ok = torch.allclose(thunder.jit(fn)(a, b), eager)
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on {'; '.join(failed)}"
print("OK: thunder.jit takes einsum's operands as a list")
