"""thunder.jit: `tensor % 3` raises `TypeError: 'NoneType' object is not callable`; `torch.remainder(tensor, 3)` works.

The `%` operator of a traced tensor (TensorProxy.__mod__) finds no method. Integer and float tensors
alike. A training step that draws class labels as `torch.arange(n) % num_labels` fails with it (ViT's,
in numfuzz's model sweep). Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0,
1e22aac; torch 2.11.0).

Exits 1 while the bug is present.
"""

import thunder
import torch

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for x in (torch.arange(4), torch.arange(4.0)):
    eager = x % 3
    try:
        compiled = thunder.jit(lambda x: x % 3)(x)
        ok = torch.equal(eager, compiled)
        print(f"{x.dtype}: eager {eager.tolist()}  thunder {compiled.tolist()}")
    except TypeError as exc:
        ok = False
        print(f"{x.dtype}: eager {eager.tolist()}  thunder TypeError: {exc}")
    if not ok:
        failed.append(str(x.dtype))
assert not failed, f"thunder.jit fails on tensor % 3 for {', '.join(failed)}"
print("OK: thunder.jit computes tensor % 3 as eager does")
