"""Inductor: torch.any of a uint8 tensor returns bool where eager returns uint8 (pytorch#198081, open).

torch.any documents uint8 in, uint8 out (the one exception to bool). Inductor's own `reduce_any` lowering returns
the bool reduction, so the compiled result's dtype changes, and arithmetic after it changes value:
`torch.any(x) * 200 + 100` is 44 (uint8 wraps) in eager and 300 (int64) compiled. torch.all keeps uint8.
numfuzz found it as `torch.any(x, dim=0, keepdim=True)` of a 0-dim uint8 x through Thunder's torchcompile
executor, which hands `any` to Inductor (Thunder main 0.2.7.dev0, 1e22aac, on torch 2.11.0); Thunder's own
torch executor and `backend="aot_eager"` keep uint8. Measured on CPU with torch 2.9.1, 2.11.0 and 2.15.0.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import torch

x = torch.tensor([[0, 3], [0, 0]], dtype=torch.uint8)
cases = {
    "torch.any(x)": lambda x: torch.any(x),
    "x.any(0)": lambda x: x.any(0),
    "torch.any(x[0, 0], dim=0, keepdim=True)": lambda x: torch.any(x[0, 0], dim=0, keepdim=True),
    "torch.any(x) * 200 + 100": lambda x: torch.any(x) * 200 + 100,
}

failed = []
for label, f in cases.items():
    eager, got = f(x), torch.compile(f, backend="inductor", fullgraph=True)(x)
    print(f"{label}: eager {eager.tolist()} {eager.dtype}  inductor {got.tolist()} {got.dtype}")
    if eager.dtype != got.dtype or not torch.equal(eager, got):
        failed.append(label)

print(f"torch {torch.__version__}")
assert not failed, f"compiled any differs from eager's: {', '.join(failed)}"
print("OK: compiled any keeps eager's uint8")
