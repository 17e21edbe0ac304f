"""thunder.jit (and thunderfx) compute with the wrong tensor, silently, when two inputs are sibling views of one storage
with the same number of elements and a trace has an in-place op: `f(out, a, b)` with `a, b = base[:, :2], base[:, 2:]`
and `out.copy_(a); return out * 0 + b` gives `a` where eager gives `b` (the trace says "[alias tensor args] `b` is
replaced by `a`").

The alias pass groups inputs by their storage's data pointer (`_alias_tensor_of_args_kwargs_dict`) and replaces each later
input of a group by the first, reshaped, wherever their element counts match (`update_aliases.replace_args_with_alias_map`);
storage offsets and strides are never compared. Sibling views are common: `torch.split` and `chunk` of one projection.
transformers' DeepSeek-V3 attention splits `kv_b_proj`'s output into `k_nope` and `value`, and assembles the key with
in-place `copy_` into `new_empty`; thunderfx hands `new_empty` to Inductor and the rest to Thunder as a subgraph whose
inputs are both views, so attention reads `k_nope` as its values (logits 0.53 off where eager is 0.003 off).

Found by numfuzz's model sweep (DeepSeek-V3's forward on thunderfx:torchcompile, 7.4 bits less accurate than eager; with
`skip_inplace_alias_updates=True` it is eager's equal). Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0,
1e22aac; torch 2.11.0), thunder.jit and thunderfx, default executors. Searched Thunder's issues and PRs for alias tensor
args, sibling views, storage offsets and wrong results: PR #877 made the replacement, PR #2760 (merged) handles aliases of
different element counts and states the equal-count assumption; #1237, #2766 and #2793 are other aliasing bugs.

Exits 1 while the bug is present.
"""

import thunder
import torch


def f(out, a, b):
    out.copy_(a)  # any in-place op turns the alias pass on
    return out * 0 + b


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
base = torch.arange(8.0).reshape(2, 4)
a, b = base[:, :2], base[:, 2:]  # one storage, the same shape, offsets 0 and 2
eager = f(torch.empty(2, 2), a, b)
jitted = thunder.jit(f)(torch.empty(2, 2), a, b)
print(f"b = {b.tolist()}; eager {eager.tolist()}; thunder.jit {jitted.tolist()}")
assert torch.equal(jitted, eager), "thunder.jit read the sibling view a where the function reads b"
print("OK: sibling views of one storage stay apart")
