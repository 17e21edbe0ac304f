"""thunder.jit silently computes `torch.nn.functional.unfold` (im2col) for `Tensor.unfold(dim, size, step)` (sliding
windows): `x.unfold(1, 2, 1)` of a (2, 4, 3) tensor is (2, 30) where eager gives (2, 3, 3, 2), with other values. The
trace is right (`ltorch.unfold`, a `prims.unfold` of shape [2, 3, 3, 2]); the torch executor's operator named "unfold"
is `torch.nn.functional.unfold`, whose automatic registration (default_torch_ops) shares the name with Tensor.unfold's,
so the final trace calls `torch.nn.functional.unfold(x, 1, 2, 1)` (kernel_size=1, dilation=2, padding=1). A 1-d or 2-d
input raises instead (F.unfold's own checks, or `"im2col_out_cpu" not implemented for 'Long'` for integers).

Found by numfuzz's op-database programs (the `unfold` OpInfo, an int64 (1, 3, 1, 1) input: (1, 3, 9) where eager gives
(1, 1, 1, 1, 3)) on Thunder main, thunder:torchcompile.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both wrong, every
executor, thunderfx too (it hands the op to Thunder).

Exits 1 while the bug is present.
"""

import thunder
import torch

cases = {
    "x.unfold(1, 2, 1), x (2, 4, 3)": (lambda a: a.unfold(1, 2, 1), torch.arange(24.0).reshape(2, 4, 3)),
    "x.unfold(2, 2, 2), x (2, 2, 4, 1)": (lambda a: a.unfold(2, 2, 2), torch.arange(16.0).reshape(2, 2, 4, 1)),
    "x.unfold(0, 2, 1), x (4,)": (lambda a: a.unfold(0, 2, 1), torch.arange(4.0)),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (fn, x) in cases.items():
    eager = fn(x)
    try:
        out = thunder.jit(fn)(x)
        ok = out.shape == eager.shape and torch.equal(out, eager)
        print(f"{name}: {'as eager' if ok else f'shape {tuple(out.shape)} where eager gives {tuple(eager.shape)}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives shape {tuple(eager.shape)}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit's Tensor.unfold is not eager's: {', '.join(failed)}"
print("OK: thunder.jit computes Tensor.unfold as eager does")
