"""thunder.jit fails on torch.matmul of a batched tensor with a batch dimension of size 0 and a matrix:
`torch.matmul(a, b)` of a (0, 2, 5, 5) `a` and a (5, 4) `b` raises `ZeroDivisionError: integer modulo by zero`, where
eager returns a (0, 2, 5, 4) tensor.

Thunder's matmul computes an N-d by 2-d product as a 2-d matmul and then `res_2d.reshape(*a_batch_dims, -1, n)`; with a
batch dimension of 0 the -1 cannot be inferred, and clang.reshape checks `a.numel % numel` with `numel` the product of
the other dimensions, 0 (thunder/clang/__init__.py). `a.reshape(0, -1)` of an empty tensor raises the same
ZeroDivisionError where eager raises a RuntimeError naming the ambiguous -1. PyTorch's own matmul had this corner case
(pytorch#20452, #63352: reshape to [-1, 0]) and handles it.

Found by numfuzz (a Thunder-main campaign, seed 1202: matmul of a (0, 2, 5, 5) bf16 input, thunder:torchcompile).

Exits 1 while the bug is present.
"""

import thunder
import torch

a, b = torch.randn(0, 2, 5, 5), torch.randn(5, 4)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
eager = torch.matmul(a, b)
try:
    got = thunder.jit(lambda a, b: torch.matmul(a, b))(a, b)
    ok = got.shape == eager.shape
    print(f"matmul {tuple(a.shape)} @ {tuple(b.shape)}: eager {tuple(eager.shape)}, thunder.jit {tuple(got.shape)}")
except ZeroDivisionError as exc:
    ok = False
    print(f"matmul {tuple(a.shape)} @ {tuple(b.shape)}: eager {tuple(eager.shape)}, thunder.jit raises ZeroDivisionError: {exc}")
assert ok, "thunder.jit fails on matmul with an empty batch dimension"
print("OK: thunder.jit computes matmul with an empty batch dimension")
