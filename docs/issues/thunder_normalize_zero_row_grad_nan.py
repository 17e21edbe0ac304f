"""thunder.jit's F.normalize gives NaN gradients for an all-zero row (a zero vector along `dim`), where eager's gradient is
finite: 1/eps (x / max(||x||, eps) is x / eps there, a linear function). Thunder decomposes the p-norm as
`sum(|x| ** p) ** (1 / p)` and clamps it to eps; at a zero row the pow's gradient is inf (0.5 * 0 ** -0.5) and the clamp's
is 0, and 0 * inf is NaN. Eager's normalize takes `x.norm(p, dim).clamp_min(eps)`, and the norm's backward is 0 at a
zero norm (pytorch#2421, fixed in 2017). `torch.linalg.vector_norm` alone is right in Thunder; only normalize's own
decomposition differs. A zero row is common: padded positions, zero-initialised embeddings, dead channels.

Found by a Thunder-main campaign (thunder:torchcompile, `F.normalize(x, eps=1e-4)` of an fp16 (32, 1) zero tensor with
gradients: NaN where eager gives 1e4). Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch
2.11.0), executors torch and torchcompile, fp32 and fp16. No upstream report found (searched Thunder's issues for
normalize, norm, zero vector, NaN and gradient); pytorch#184575 (closed) confirms 1/eps as the intended gradient.

Exits 1 while the bug is present.
"""

import thunder
import torch
import torch.nn.functional as F


def fn(x):
    return F.normalize(x, dim=-1, eps=1e-4)


failed = []
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
for dtype in (torch.float32, torch.float16):
    grads = []
    for f in (fn, thunder.jit(fn)):
        x = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=dtype, requires_grad=True)
        f(x).backward(torch.ones(2, 2, dtype=dtype))
        grads.append(x.grad)
    eager, jitted = grads
    print(f"{dtype}: eager {eager.tolist()}, thunder {jitted.tolist()}")
    if not torch.equal(eager.isfinite(), jitted.isfinite()):
        failed.append(str(dtype))
assert not failed, f"thunder.jit's normalize gradient of a zero row is not finite ({', '.join(failed)})"
print("OK: the gradient of a zero row is finite as eager's")
