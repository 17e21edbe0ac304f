"""thunder.jit types the float result of an integer or bool tensor as a weak dtype, the dtype of a Python number: in
its trace `torch.sigmoid(i)` of an int64 `i` is `float32_` (weak), so `torch.sigmoid(i) * h` with a bf16 `h` is bf16
in the trace, where eager's `sigmoid(i)` is an ordinary fp32 tensor and the product fp32. Thunder's type promotion
(`elementwise_type_promotion_and_casting`) returns the Python type `float` as the result dtype of an INT_TO_FLOAT op
(sin, exp, sigmoid, atan2, true division, ...) on integer tensors, and `int`/`float` where a bool or integer tensor
meets a Python number (`b + 1`, `i + 0.5`); a tensor of that dtype is weak, as a 0-dim Python scalar would be. At run
time the executors call torch, so the tensor the user gets has eager's dtype; the trace's dtype is what is wrong:
`(torch.sigmoid(i) * h).dtype` returns torch.bfloat16, and an op that checks its operands' dtypes raises where eager
computes: `torch.matmul(torch.sigmoid(i) * h, w)` with an fp32 `w` raises `Expected a.dtype=thunder.dtypes.bfloat16
and b.dtype=thunder.dtypes.float32 to be the same` (bmm, einsum, linear and baddbmm alike). Found by numfuzz (a bool
input through sigmoid, then atan2 with a bf16 input, then matmul with an fp32 one; Thunder main, thunder:torchcompile).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both fail; the error is
raised while tracing, before any executor; thunderfx raises the matmul error too.

Exits 1 while the bug is present.
"""

import thunder
import torch

i = torch.tensor([[0, 1], [2, 3]])
b = torch.tensor([[False, True], [True, False]])
h = torch.tensor([[0.5, 1.0], [1.5, 2.0]], dtype=torch.bfloat16)
w = torch.ones(2, 2)
i8 = torch.tensor([[1, 2], [3, 4]], dtype=torch.int8)

cases = {
    "(torch.sigmoid(i) * h).dtype": (lambda: (torch.sigmoid(i) * h).dtype),
    "(i / i + h).dtype": (lambda: (i / i + h).dtype),
    "((i + 0.5) + h).dtype": (lambda: ((i + 0.5) + h).dtype),
    "((b + 1) + i8).dtype": (lambda: ((b + 1) + i8).dtype),
    "torch.matmul(torch.sigmoid(i) * h, w)": (lambda: torch.matmul(torch.sigmoid(i) * h, w)),
    "torch.matmul(torch.atan2(torch.sigmoid(b), h), w)": (lambda: torch.matmul(torch.atan2(torch.sigmoid(b), h), w)),
}


def same(got, eager):
    if isinstance(eager, torch.Tensor):
        return got.dtype == eager.dtype and torch.allclose(got, eager)
    return got == eager


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    eager = fn()
    try:
        got = thunder.jit(fn)()
        ok = same(got, eager)
        print(f"{name}: {'as eager' if ok else f'{got} where eager gives {eager}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit types the float result of an integer tensor as a weak dtype: {', '.join(failed)}"
print("OK: thunder.jit types the results of integer and bool tensors as eager does")
