"""thunder.jit rejects the NumPy-style keyword names torch's functions take: `torch.mean(x, axis=-1)` raises
`TypeError: mean() got an unexpected keyword argument 'axis'` where eager gives the mean over the last dim.

torch's argument parser maps `axis` to `dim`, `keepdims` to `keepdim`, and `x1`/`x2` to `input`/`other` for every
function it parses (`numpy_compatibility_arg_names` in `torch/csrc/utils/python_arg_parser.cpp`). Thunder's torch
language functions (`thunder/torch/__init__.py`) are Python functions named by the canonical parameters only, and
the interpreter binds the call's keywords to them, so every alias is a TypeError: mean, sum, amax, var, cat, softmax
and the Tensor methods alike. thunderfx compiles them, because Dynamo's graph normalises the keywords first.

transformers' ImageGPT calls `torch.mean(x, axis=-1)` in its layer norm, so `thunder.jit(ImageGPTModel)` fails on
its first call. Found by numfuzz (the transformers sweep: hf:imagegpt on thunder:torchcompile, forward and training
step). Measured on Thunder 0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0). No Thunder report found
(searched Thunder's issues and PRs for axis, keepdims, keyword aliases and the message); Inductor had one pass with
the same gap, for `torch.cat(axis=)` (pytorch#184992, fixed).

Exits 1 while the bug is present.
"""

import thunder
import torch

CALLS = {
    "torch.mean(x, axis=-1)": lambda x: torch.mean(x, axis=-1),
    "x.sum(axis=0, keepdims=True)": lambda x: x.sum(axis=0, keepdims=True),
    "torch.amax(x, axis=0)": lambda x: torch.amax(x, axis=0),
    "torch.cat([x, x], axis=1)": lambda x: torch.cat([x, x], axis=1),
    "torch.add(x1=x, x2=x)": lambda x: torch.add(x1=x, x2=x),
}

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x = torch.arange(12.0).reshape(3, 4)
failed = []
for text, call in CALLS.items():
    expected = call(x)
    try:
        same = torch.equal(thunder.jit(call)(x), expected)
        print(f"{text}: {'as eager' if same else 'differs from eager'}")
    except TypeError as error:
        same = False
        print(f"{text}: TypeError: {error}")
    if not same:
        failed.append(text)
if failed:
    raise SystemExit(f"thunder.jit rejects or changes {len(failed)} of {len(CALLS)} calls that eager takes")
print("OK: thunder.jit takes torch's keyword aliases")
