"""thunder.jit's `torch.repeat_interleave(x, repeats)` returns a view of `x` where eager returns a new tensor, when the
decomposition's reshape can view: a 0-d `x` (any `repeats`: an expanded view with stride 0) or `repeats=1` (`x`'s own
memory). Writing into the result then changes the input, which it does not in eager. Thunder decomposes
`repeat_interleave(x, r)` as `x.reshape(-1, 1).expand(-1, r).reshape(-1)`, and the torch executor's reshape of that is a
view; eager's kernel always allocates (its docs: "Repeat elements of a tensor", a new tensor). Found by numfuzz's
op-database programs (the `repeat_interleave` OpInfo, a 0-d uint8 input, repeats=2) on Thunder main,
thunder:torchcompile, as a metadata finding: "a view of input x0 where eager gives a new tensor".

A 1-d input with repeats=2 gets a new tensor. The opposite of lightning-thunder#2216 (open: symbols that return a new
tensor where PyTorch returns a view).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): every executor.

Exits 1 while the bug is present.
"""

import thunder
import torch

cases = {
    "repeat_interleave(tensor(5.0), 2)": (lambda a: torch.repeat_interleave(a, 2), torch.tensor(5.0)),
    "repeat_interleave(tensor([1., 2., 3.]), 1)": (lambda a: torch.repeat_interleave(a, 1), torch.tensor([1.0, 2.0, 3.0])),
    "repeat_interleave(tensor([1., 2., 3.]), 2)": (lambda a: torch.repeat_interleave(a, 2), torch.tensor([1.0, 2.0, 3.0])),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (fn, x) in cases.items():
    for who, f in (("eager", fn), ("thunder.jit", thunder.jit(fn))):
        x_ = x.clone()
        out = f(x_)
        out.view(-1)[0] = 99.0  # a user's in-place update of the result
        changed = not torch.equal(x_, x)
        print(f"{name}, {who}: writing into the result {'changes' if changed else 'leaves'} the input")
        if changed and who != "eager":
            failed.append(name)
assert not failed, f"thunder.jit's repeat_interleave returns a view of its input: {', '.join(failed)}"
print("OK: thunder.jit's repeat_interleave returns a new tensor as eager does")
