"""Inductor: floating floor_divide is floor() of the rounded quotient (pytorch#197895, open).

Eager's floor_divide (and div(rounding_mode="floor"), and Python's //) compute the floor of the exact quotient with
fmod and a sign correction. Inductor lowers it to floor(a / b), so wherever the rounded quotient lands on an integer
the exact one lies beside, the result is off by one: 1.0 // 0.1 is 9.0 in eager and 10.0 compiled, and a negative
quotient too small for the dtype underflows to -0.0, whose floor is -0.0 where eager gives -1.0.
numfuzz found the second as `torch.floor_divide` of a bf16 0-dim -3.16e-30 by a bf16 (12,) 4.5e15 (quotient -7e-46,
under fp32's smallest subnormal), a 30-minute torch 2.15.0 campaign. Measured on CPU with torch 2.9.1 and 2.15.0;
float64 alike for 1.0 // 0.1.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import torch

cases = {
    "bf16 -3.16e-30 // 4.5e15": (torch.tensor([-3.1554436208840472e-30], dtype=torch.bfloat16), torch.tensor([4503599627370496.0], dtype=torch.bfloat16)),
    "fp32 -1e-30 // 1e16": (torch.tensor([-1e-30]), torch.tensor([1e16])),
    "fp32 1.0 // 0.1": (torch.tensor([1.0]), torch.tensor([0.1])),
}

f = torch.floor_divide
compiled = torch.compile(f, backend="inductor", fullgraph=True)
failed = []
for label, (a, b) in cases.items():
    eager, got = f(a, b), compiled(a, b)
    print(f"{label}: eager {eager.tolist()}  inductor {got.tolist()}")
    if not torch.equal(eager, got):
        failed.append(label)

print(f"torch {torch.__version__}")
assert not failed, f"compiled floor_divide differs from eager's: {', '.join(failed)}"
print("OK: compiled floor_divide floors the exact quotient, as eager does")
