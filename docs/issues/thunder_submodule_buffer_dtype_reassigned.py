"""thunder.jit of a model whose submodule reassigns its buffer in another dtype (`self.k = self.k.to(x.dtype)`, a KV
cache or a positions table moved to the activations' dtype under mixed precision) runs the first call and fails every
later one: `AssertionError: expected tensor with (4, 8), cpu, torch.float64, ..., got (4, 8), cpu, torch.float32`,
raised by the prologue of the trace Thunder has just made again for the call.

The first call reads the buffer as float64 and the epilogue writes the float32 one back (ThunderModule's override of
the buffer). On the second call the cached prologue rejects it, a cache miss, and Thunder traces again; the new trace
reads the buffer as float64 again while its prologue is given the float32 override, so the check raises instead of
missing. The same module jitted at the top level passes: only a submodule's buffer (one attribute load deeper) fails.
transformers' Wav2Vec2-Conformer (`extend_pe`) and lightning-thunder#1637's cache module reassign so.

Found by numfuzz's model check (a module reassigning its buffer, inside the training step's wrapper and under autocast,
failed on its second sample after the float64 reference had left the buffer in float64).
Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0). Searched Thunder's issues for
buffer reassignment, dtype, submodule, second call and the message: #646 (a buffer updated in forward, open), #1951
(a conditional buffer update, open) and #1637 (a top-level buffer cast, closed) are kin; none has a second call failing.

Exits 1 while the bug is present.
"""

import thunder
import torch


class Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.ones(4, 8, dtype=torch.float64), persistent=False)

    def forward(self, x):
        self.table = self.table.to(x.dtype)  # moved to the activations' dtype, as mixed precision needs
        return x + self.table


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = Cache()

    def forward(self, x):
        return self.cache(x)


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.randn(4, 8)
top = thunder.jit(Cache())
top(x), top(x)
print("the module itself jitted: two calls pass")
nested = thunder.jit(Model())
first = nested(x)
torch.testing.assert_close(first, x + 1)
try:
    nested(x)
except AssertionError as exc:
    raise SystemExit(f"the second call of the jitted model with a submodule's buffer cast: AssertionError: {exc}") from None
print("OK: a submodule's buffer cast in forward traces again on the second call")
