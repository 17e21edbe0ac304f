"""After a cache hit, a function compiled by thunder.jit leaves PyTorch's grad mode as it found it, not as the function
leaves it: thunderfx then leaves grad mode off after a training step, and the user's next backward fails.

Thunder tracks `torch.set_grad_enabled` inside its trace (`cd.is_grad_enabled`) and, after each call, sets PyTorch's mode
to that value (lightning-thunder PR #2499, for no_grad regions thunderfx's splitter cuts into pieces). But every call
first resets `cd.is_grad_enabled` to the mode at entry (`thunder/__init__.py`, where the cache info is gathered), and
only a cache miss traces the function again to update it. So on every call after the first, the mode after the call is
the mode before it.

- A function that turns grad mode off (as the head of a split no_grad region does) leaves it on from its second call.
- A function that turns it back on (as the tail of the region does, entered with grad mode off) leaves it off from its
  second call. Under thunderfx, a model with a `@torch.no_grad()` helper whose ops the splitter sends to Inductor in
  parts (Kosmos-2.5's sinusoidal positions: `int` and `detach` have only torch fallbacks) is such a case: after the
  second training step, grad mode is off, and the next step's backward raises "element 0 of tensors does not require
  grad and does not have a grad_fn".

Found by numfuzz's model sweep: Kosmos-2.5's training step on thunderfx:torchcompile left a worker's grad mode off, and
every training step judged after it in that worker failed so (MiniCPM3, Solar-Open, SqueezeBERT, GOT-OCR2,
BlenderBot). Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0); Thunder main does not
import on torch 2.15.0. Related: lightning-thunder#2398 (closed; a split no_grad region's first call) and PR #2499
(merged; the reflection this bug bypasses); #1486 (open) is about `cd.is_grad_enabled` inside a no_grad function. No
report of the cache-hit case found (searched Thunder's issues and PRs for set_grad_enabled, is_grad_enabled, no_grad,
cache hits and the message).

Exits 1 while the bug is present.
"""

import thunder
import torch
from thunder.dynamo import thunderfx


def turns_grad_off(x):
    torch.set_grad_enabled(False)  # the head of a no_grad region the splitter cut off
    return x * 2


def with_positions(ids, tokens, table):
    h = torch.nn.functional.embedding(ids, tokens) * 2.0
    with torch.no_grad():  # Kosmos-2.5's positions, as transformers writes them
        mask = ids.ne(1).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1
        p = table.index_select(0, positions.view(-1)).view(*ids.shape, -1).detach()
    return (h + p).square().mean()


def modes_after(fn, args, calls=3):
    """PyTorch's grad mode after each call of `fn`, each call entered with grad mode on."""
    after = []
    for _ in range(calls):
        torch.set_grad_enabled(True)
        fn(*args)
        after.append(torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    return after


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.randn(4, requires_grad=True)
ids, tokens, table = torch.randint(2, 30, (1, 16)), torch.randn(32, 8, requires_grad=True), torch.randn(40, 8)
cases = {
    "thunder.jit of a function that turns grad mode off": (turns_grad_off, thunder.jit(turns_grad_off), (x,)),
    "thunderfx of a function with a no_grad region": (with_positions, thunderfx(with_positions), (ids, tokens, table)),
}
wrong = []
for name, (eager, compiled, args) in cases.items():
    expected, got = modes_after(eager, args), modes_after(compiled, args)
    print(f"{name}: grad mode after each call: eager {expected}, compiled {got}")
    if got != expected:
        wrong.append(name)
if wrong:
    raise SystemExit(f"grad mode after a call differs from eager's: {'; '.join(wrong)}")
print("OK: grad mode after every call is eager's")
