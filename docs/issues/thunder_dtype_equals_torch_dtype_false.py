"""thunder.jit: `t.dtype == torch.bfloat16` is False for a bf16 tensor, so a branch on a dtype silently takes the other side.

Inside thunder.jit a tensor's `.dtype` is Thunder's dtype (thunder.dtypes.bfloat16), and comparing it
with torch's dtype gives False; `in [torch.float16, torch.bfloat16]` too. `x.to(w.dtype)` still works.
transformers' T5LayerNorm casts its fp32 result back with `if self.weight.dtype in [torch.float16,
torch.bfloat16]: hidden_states = hidden_states.to(self.weight.dtype)`: under Thunder the cast is
skipped, and the next Linear of the bf16 or fp16 T5 fails (`Expected a.dtype=thunder.dtypes.float32
and w.dtype=thunder.dtypes.bfloat16 to be the same!`). Code whose two branches both run gives other
values silently, as below. Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0,
1e22aac; torch 2.11.0).

Upstream: lightning-thunder#2306 (open, "Support tracing through input-dtype asserts") is the same mechanism,
`assert x.dtype in (torch.float32, torch.bfloat16)` failing under thunder.jit; its repro fails on both versions above.
This script is for a comment there: the comparison also takes a branch silently, with wrong values and T5's failure.

Exits 1 while the bug is present.
"""

import thunder
import torch


def branch_on_dtype(x, w):
    return x + 1 if w.dtype == torch.bfloat16 else x - 1


def t5_layer_norm_cast(x, w):  # transformers' T5LayerNorm, its last lines
    if w.dtype in [torch.float16, torch.bfloat16]:
        x = x.to(w.dtype)
    return w * x


x, w = torch.zeros(2), torch.ones(2, dtype=torch.bfloat16)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for fn in (branch_on_dtype, t5_layer_norm_cast):
    eager, compiled = fn(x, w), thunder.jit(fn)(x, w)
    print(f"{fn.__name__}: eager {eager.tolist()} {eager.dtype}  thunder {compiled.tolist()} {compiled.dtype}")
    if eager.dtype != compiled.dtype or not torch.equal(eager.float(), compiled.float()):
        failed.append(fn.__name__)
assert not failed, f"thunder.jit takes another branch than eager: {', '.join(failed)}"
print("OK: thunder.jit branches on dtypes as eager does")
