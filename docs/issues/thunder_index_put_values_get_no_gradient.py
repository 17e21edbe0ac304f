"""thunder.jit gives `torch.index_put`'s `values` no gradient: None where eager's is the upstream gradient at the indices.

Thunder's backward rule for `torch.index_put` (`index_put_backward` in `thunder/core/transforms.py`) returns two
gradients, the input's and the values', but the primal's inputs are `(a, indices, values, accumulate)`: the values'
gradient lands on `indices`, an integer sequence, and is dropped, and `values` gets none. So `x[idx] = v` computed as
`index_put(x, (idx,), v)` trains nothing through `v`, silently; where `v` is computed from `x` (`x[idx] + x[idx]`,
`x[idx] * 2`), `x`'s own gradient loses that path: 0 where eager's is 2. `accumulate=True` likewise.

Found by numfuzz (a Thunder-main campaign, seed 1204: `index_put(x, (idx,), x[idx] + x[idx])` in fp16, the gradient
of x 0 where eager's is 2). Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0), in
fp32 too. No report found (searched Thunder's issues and PRs for index_put, its backward, values and missing
gradients); lightning-thunder#2036 (closed) is setitem's boolean index, pytorch#146299 eager's repeated indices.

Exits 1 while the bug is present.
"""

import thunder
import torch


def put(x, v, idx):
    return torch.index_put(x, (idx,), v)


def put_computed(x, idx):
    return torch.index_put(x, (idx,), x[idx] * 2)


def grads(fn, tensors, idx):
    leaves = [t.detach().clone().requires_grad_() for t in tensors]
    out = fn(*leaves, idx)
    found = torch.autograd.grad(out, leaves, torch.arange(1.0, 7.0), allow_unused=True)
    return [None if g is None else g.tolist() for g in found]


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
idx = torch.tensor([0])
wrong = []
for name, fn, tensors in (("values given", put, (torch.zeros(6), torch.zeros(1))), ("values from x", put_computed, (torch.zeros(6),))):
    eager, compiled = grads(fn, tensors, idx), grads(thunder.jit(fn), tensors, idx)
    print(f"{name}: eager {eager}, thunder.jit {compiled}")
    if compiled != eager:
        wrong.append(name)
if wrong:
    raise SystemExit(f"index_put's gradients differ from eager's: {', '.join(wrong)}")
print("OK: index_put's gradients agree with eager's")
