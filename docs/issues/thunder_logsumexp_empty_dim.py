"""thunder.jit raises `RuntimeError: Can't reduce over a zero-size dimension when computing a reduction without an
identity value.` on `torch.logsumexp(x, dim)` over a dimension of size 0, where eager returns -inf (the log of an empty
sum; ATen's logsumexp has handled empty inputs since pytorch PR #9825): Thunder's logsumexp starts with
`amax(x, dim, keepdim=True)`, which has no identity, before its log(sum(exp(x - max))). Found by numfuzz
(`logsumexp(x, dim=-1, keepdim=True)` of a (0,) fp32 input; Thunder main, thunder:torchcompile).

`amax` over an empty dim raises in eager too; only logsumexp's own result is defined there. Thunder's `log_softmax` is
`a - logsumexp(a, dim, keepdim=True)`, so `log_softmax` over an empty dim raises the same where eager returns the empty
tensor (a Thunder-main campaign, seed 1201); `softmax` runs.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

cases = {
    "logsumexp(empty (0,), -1, keepdim=True)": (torch.empty(0), lambda a: torch.logsumexp(a, -1, keepdim=True)),
    "logsumexp(empty (0,), 0)": (torch.empty(0), lambda a: torch.logsumexp(a, 0)),
    "logsumexp((2, 0), 1)": (torch.empty(2, 0), lambda a: torch.logsumexp(a, 1)),
    "log_softmax(empty (0,), -1)": (torch.empty(0), lambda a: torch.log_softmax(a, -1)),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (x, fn) in cases.items():
    eager = fn(x)
    try:
        got = thunder.jit(fn)(x)
        ok = got.shape == eager.shape and torch.equal(got, eager)
        print(f"{name}: {'as eager' if ok else f'{got} where eager gives {eager}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives {eager.tolist()}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on logsumexp (and log_softmax) over an empty dim: {', '.join(failed)}"
print("OK: thunder.jit gives -inf for logsumexp over an empty dim, as eager does")
