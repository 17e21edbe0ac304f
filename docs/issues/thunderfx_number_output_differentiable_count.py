"""thunderfx with gradients fails on a graph that returns `torch.div(int, int)` beside a differentiable output:
`AssertionError` at `assert len(flat_output) == len(is_differentiable_outputs)` (thunder/executors/torch_autograd.py,
ThunderFunction.forward).

Dynamo's graph has the division's result as a 0-d tensor, and thunderfx's splitter marks one `is_differentiable_outputs`
entry per output of that graph. Thunder's own `torch.div` of two Python numbers gives a Python number, not a tensor, so it
drops out of the flat outputs handed to autograd: one entry fewer than the splitter counted. Without gradients the graph
runs, and hands back a Python int where PyTorch has `tensor(2)` (as `thunder.jit` does).
transformers' Longformer and LED compute `torch.div(seq_len, window_overlap, rounding_mode="trunc")` in their attention,
so their training steps fail under thunderfx.

Found by numfuzz's model sweep (LED's training step on thunderfx:torchcompile, Thunder main). Measured on Thunder 0.2.6
(torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0), default executors and the torch executor alone. Searched
Thunder's issues for the assertion, is_differentiable_outputs, number outputs and int division: PR #2348 introduced the
count (for requires_grad outputs), PR #2429 (open) handles an output node without an example value, #2420 SymInt nodes;
none has a number-valued output.

Exits 1 while the bug is present.
"""

import thunder
import torch
from thunder.dynamo import thunderfx


def f(x):
    return x * 2, torch.div(512, 256, rounding_mode="trunc")


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.randn(4, requires_grad=True)
print(f"eager: {f(x)[1]!r}")
with torch.no_grad():
    print(f"thunderfx without gradients: {thunderfx(f)(x.detach())[1]!r}")
try:
    doubled, quotient = thunderfx(f)(x)
except AssertionError:
    raise SystemExit("thunderfx with gradients: AssertionError in ThunderFunction.forward (len(flat_output) != len(is_differentiable_outputs))") from None
doubled.sum().backward()
torch.testing.assert_close(x.grad, torch.full_like(x, 2.0))
print("OK: a number-valued output beside a differentiable one compiles")
