"""Under torch.autocast (CPU, fp16 or bf16), thunder.jit fails on `F.scaled_dot_product_attention(q, k, v, attn_mask=m)`
with fp32 q, k, v and an fp32 *float* mask, which eager computes: Thunder's autocast rule for sdpa
(thunder/transforms/autocast.py) downcasts query, key and value but not `attn_mask`, so Thunder's sdpa meets an fp32 mask
beside fp16 queries (`RuntimeError: Expected a.dtype=thunder.dtypes.float32 and b.dtype=thunder.dtypes.float16 to be
the same`). Eager's autocast lists sdpa as lower-precision and casts every floating tensor argument, the mask too
(pytorch#99012 was eager's own form of this error, on torch 2.0; eager no longer raises). An fp16 mask, a boolean mask
or no mask pass.

With `with torch.autocast(...)` inside the jitted function (T5's self-attention adds its fp32 position bias as the mask
this way), the error is hidden: it is raised inside a Thunder symbol, the with-block's exit then runs the
`autocast_exit` symbol, and the user sees only `InterpreterError: ... AssertionError: A symbol [Symbol
name=autocast_exit] was called while processing a primitive` (any error raised inside a symbol in an autocast block
reads so). Found by numfuzz (the hf:t5 model zoo's encoder self-attention, minimised to one sdpa with a float mask,
Thunder main, thunder:torchcompile, fp16 autocast).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, fp16 and
bf16, every executor; thunderfx raises the dtype error too.

Exits 1 while the bug is present.
"""

import thunder
import torch
import torch.nn.functional as F

q, mask = torch.randn(1, 2, 4, 8), torch.zeros(1, 1, 4, 4)


def attention(q, mask):
    return F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


def attention_in_autocast(q, mask):
    with torch.autocast("cpu", dtype=torch.float16):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


def jit_under_autocast(q, mask):
    with torch.autocast("cpu", dtype=torch.float16):
        return thunder.jit(attention)(q, mask)


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, run in {
    "autocast around thunder.jit": jit_under_autocast,
    "autocast inside the jitted function": thunder.jit(attention_in_autocast),
}.items():
    eager = attention_in_autocast(q, mask)
    try:
        out = run(q, mask)
        ok = out.dtype == eager.dtype and torch.allclose(out.float(), eager.float(), atol=1e-2)
        print(f"{name}: {'as eager' if ok else f'differs from eager ({out.dtype} vs {eager.dtype})'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives {eager.dtype}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on sdpa with an fp32 float mask under fp16 autocast ({'; '.join(failed)})"
print("OK: thunder.jit casts sdpa's float mask under autocast as eager does")
