"""thunder.jit raises `IndexError: tuple index out of range` on `torch.squeeze(x, 0)` (and `x.squeeze(-1)`,
`torch.squeeze(x, (0,))`) of a 0-d `x`, which eager computes (the 0-d tensor itself); `torch.logsumexp(x, 0)` of a 0-d
`x` reaches it: Thunder's logsumexp ends with `squeeze(input_max, dim)` when keepdim is False. Found by numfuzz
(`logsumexp(x, dim=0)` of a 0-d input, minimised from a larger program, Thunder main, thunder:torchcompile).

Thunder's `squeeze` canonicalises the dims (dim 0 and -1 of a 0-d tensor are accepted, as in torch), then keeps those
of size 1 with `a.shape[d] == 1`, which indexes the empty shape. `logsumexp(x, 0, keepdim=True)` passes (no squeeze),
and so do `amax`, `sum`, `softmax` and `log_softmax` of a 0-d input with dim 0. The mechanism of the `index_select`
of a 0-d input (numfuzz-thunder-index-select-0dim-input): a dim that canonicalisation accepts for a 0-d tensor, then
`shape[dim]`.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

x = torch.tensor(0.5)
cases = {
    "torch.squeeze(x, 0)": lambda a: torch.squeeze(a, 0),
    "x.squeeze(-1)": lambda a: a.squeeze(-1),
    "torch.squeeze(x, (0,))": lambda a: torch.squeeze(a, (0,)),
    "torch.logsumexp(x, 0)": lambda a: torch.logsumexp(a, 0),
    "torch.logsumexp(x, 0, keepdim=True)": lambda a: torch.logsumexp(a, 0, keepdim=True),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}; x = tensor(0.5), 0-d")
failed = []
for name, fn in cases.items():
    eager = fn(x)
    try:
        out = thunder.jit(fn)(x)
        ok = out.shape == eager.shape and torch.allclose(out, eager)
        print(f"{name}: {'as eager' if ok else f'differs from eager: {out} vs {eager}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives {eager}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on a 0-d input: {', '.join(failed)}"
print("OK: thunder.jit squeezes a 0-d tensor along dim 0 as eager does")
