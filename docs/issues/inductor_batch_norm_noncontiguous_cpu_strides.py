"""Inductor (CPU): batch_norm of a non-contiguous input keeps the input's strides, eager's is contiguous (pytorch#192668, open).

Eager's CPU batch_norm allocates a contiguous output (suggest_memory_format), but its fake/meta path, the
native_batch_norm_helper decomposition, computes with elementwise ops that keep the input's layout, and Inductor
returns that: batch_norm of a transposed (2, 2) input has strides (2, 1) in eager and (1, 2) compiled, so
out.view(-1) raises on the compiled result only. aot_eager returns eager's. numfuzz found it with
F.batch_norm(x.t(), m, m, m, m, training=False, eps=1.0), a 30-minute torch 2.15.0 campaign's metadata oracle.
Measured on CPU with torch 2.9.1, 2.11.0 and 2.15.0, eval and training mode, 2-d and 3-d. PR #192681 (open) pins the
CPU layout in the helper.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import torch
import torch.nn.functional as F

x = torch.zeros(2, 2).t()  # strides (1, 2)
mean, var = torch.zeros(2), torch.ones(2)


def f(x, mean, var):
    return F.batch_norm(x, mean, var, training=False)


eager, got = f(x, mean, var), torch.compile(f, backend="inductor", fullgraph=True)(x, mean, var)
print(f"input {x.stride()}  eager {eager.stride()}  inductor {got.stride()}")
print(f"torch {torch.__version__}")
assert got.stride() == eager.stride(), f"compiled batch_norm strides {got.stride()} where eager gives {eager.stride()}, so view(-1) fails"
print("OK: compiled batch_norm keeps eager's layout")
