"""Inductor: matmul of a 2-d and a 1-d tensor of different dtypes computes where eager raises.

Eager's mv (addmv) requires one dtype: int32 (1, 1) @ int8 (1,) raises "addmv input tensors must have the same dtype,
but got Char, Int, and Char" on torch 2.15.0 ("expected scalar type Int but found Char" on 2.9.1), and so does fp32
(2, 3) @ fp64 (3,), and aot_eager. Inductor decomposes mv into a promoted multiply and a sum, and returns int32 and
float64 results. The same lost check as pytorch#177630 (open; fp16 @ fp32 of >=3-d inputs, which raises compiled on
2.15.0) on the mv path, which still computes. numfuzz found it as `x0.__rmatmul__(x1)` of an int8 (1,) x0 and an
int32 (1, 1) x1, a 30-minute torch 2.15.0 campaign's error-parity check. Measured on CPU with torch 2.9.1 and 2.15.0.

Raises AssertionError while the compiled program computes what eager refuses; exits 0 once it raises too.
"""

import torch

cases = {
    "int32 (1, 1) @ int8 (1,)": (torch.tensor([[3]], dtype=torch.int32), torch.tensor([2], dtype=torch.int8)),
    "fp32 (2, 3) @ fp64 (3,)": (torch.ones(2, 3), torch.ones(3, dtype=torch.float64)),
}


def f(a, b):
    return a @ b


unchecked = []
for label, (a, b) in cases.items():
    try:
        f(a, b)
        eager = "computes"
    except RuntimeError as e:
        eager = f"raises: {e}"
    torch._dynamo.reset()
    try:
        got = torch.compile(f, backend="inductor", fullgraph=True)(a, b)
        compiled = f"returns {got.dtype} {got.tolist()}"
    except Exception as e:
        compiled = f"raises {type(e).__name__}"
    print(f"{label}: eager {eager} | inductor {compiled}")
    if eager.startswith("raises") and compiled.startswith("returns"):
        unchecked.append(label)

print(f"torch {torch.__version__}")
assert not unchecked, f"eager refuses and the compiled program computes: {', '.join(unchecked)}"
print("OK: the compiled program refuses mixed-dtype mv, as eager does")
