"""thunder.jit with the torchcompile executor computes `F.glu` wrong, silently: `glu([[1, 2, 3, 4]])` gives [1, 1] where
eager and Thunder's torch executor give [0.9526, 1.9640] (the generated code multiplies sigmoid(b) by 1 + exp(-b), not
by the first half). With a few dead ops before it, the same call raises `KeyError: 't6'` in the executor's fusion pass
(`make_compiled` -> `transform_for_execution` -> `add_to_swap_map`: `self.new_trace.names.remove(old.name)`).

`make_compiled` registers the names of a fused region's outputs and of one level of their subsymbols; glu's prims sit
two and three levels down (glu > sigmoid > neg, exp, ...). When the region is decomposed again for the torch executor,
a proxy named there either meets a name never registered (the KeyError) or one a fresh proxy already took, and the
name-keyed substitution connects the wrong tensors (the wrong value). Which one depends on how many names came before.
Wav2Vec2-Conformer's convolution module (`nn.functional.glu`) fails so in transformers (`KeyError: 't648'`).

Found by numfuzz's model sweep (Wav2Vec2-Conformer's forward on thunder:torchcompile, Thunder main). Measured on
Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0); `thunderfx` with the torchcompile executor too.
Registering the nested subsymbols' names in `make_compiled` makes both cases right. Searched Thunder's issues for glu,
nested subsymbols, add_to_swap_map and the KeyError: PR #1545 (the one-level name registration), #1274 and #1606 (a
trace's names out of step with its proxies, open) are the nearest; none has this repro.

Exits 1 while the bug is present.
"""

import thunder
import torch
import torch.nn.functional as F
from thunder.extend import get_executor

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
torchcompile = [get_executor("torchcompile")]
x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
eager = F.glu(x, 1)
got = thunder.jit(lambda t: F.glu(t, 1), executors=torchcompile)(x)
print(f"glu: eager {eager.tolist()}, torchcompile executor {got.tolist()}")


def after_dead_ops(t):
    for _ in range(4):
        t.sin()  # dead: takes names t0..t3 before glu's
    return F.glu(t, 1)


try:
    thunder.jit(after_dead_ops, executors=torchcompile)(torch.randn(2, 8))
    crashed = ""
except KeyError as exc:
    crashed = f"KeyError {exc}"
print(f"glu after four dead ops: {crashed or 'runs'}")
assert torch.allclose(got, eager) and not crashed, "the torchcompile executor's glu is wrong or fails to compile"
print("OK: glu is eager's under the torchcompile executor")
