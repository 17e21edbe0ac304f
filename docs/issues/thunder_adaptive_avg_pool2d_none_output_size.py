"""thunder.jit raises `ValueError: Element 0 (None) had an unexpected type <class 'NoneType'>` on
`F.adaptive_avg_pool2d(x, (None, 7))` (and `(2, None)`; `nn.AdaptiveAvgPool2d((None, 7))` alike), which eager computes:
PyTorch documents that an entry of `output_size` may be None, "which means the size will be the same as that of the
input", and its adaptive_avg_pool2d OpInfo samples (None, 7), (5, None) and (None, None). Thunder's
`adaptive_avg_pool2d` checks each entry for int and never maps None to the input's size. Found by numfuzz's op-database
programs (the `nn.functional.adaptive_avg_pool2d` OpInfo) on Thunder main, thunder:torchcompile.

`adaptive_max_pool2d` and `adaptive_avg_pool3d` with a None entry pass (Thunder runs them as torch's).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both raise, every
executor. thunderfx passes on 0.2.6 (torch 2.9.1).

Exits 1 while the bug is present.
"""

import thunder
import torch
import torch.nn.functional as F

x = torch.arange(2 * 5 * 14, dtype=torch.float32).reshape(1, 2, 5, 14)
cases = {
    "adaptive_avg_pool2d(x, (5, 7))": lambda a: F.adaptive_avg_pool2d(a, (5, 7)),
    "adaptive_avg_pool2d(x, (None, 7))": lambda a: F.adaptive_avg_pool2d(a, (None, 7)),
    "adaptive_avg_pool2d(x, (2, None))": lambda a: F.adaptive_avg_pool2d(a, (2, None)),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}; x of shape {tuple(x.shape)}")
failed = []
for name, fn in cases.items():
    eager = fn(x)
    try:
        out = thunder.jit(fn)(x)
        ok = out.shape == eager.shape and torch.allclose(out, eager)
        print(f"{name}: {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives shape {tuple(eager.shape)}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit fails on a None entry of output_size: {', '.join(failed)}"
print("OK: thunder.jit takes a None entry of adaptive_avg_pool2d's output_size as eager does")
