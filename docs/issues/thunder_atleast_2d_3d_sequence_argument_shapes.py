"""thunder.jit traces `torch.atleast_3d([x])` (and `atleast_2d`, a list or a tuple) as the list unchanged: the trace's
tensors keep their input shapes, so `torch.atleast_3d([x])[0].shape` of a (2, 2) `x` is (2, 2) where eager gives
(2, 2, 1), and a later op that checks shapes fails: `torch.bmm(torch.atleast_3d([x])[0], y)` raises `Expected the the
last two dimensions of a ((2, 2)) be matrix multipiable ...`, which eager computes. Thunder's `atleast_2d` and
`atleast_3d` unsqueeze each positional argument that is a TensorProxy and pass anything else through, the list too (its
`atleast_1d` reads `.ndim` of the list and raises instead: numfuzz-thunder-atleast-1d-sequence-argument). At run time
the executors call torch's own `atleast_3d`, so a result that reaches the user as a tensor has eager's shape: only what
the trace decides from the shape (a check, a returned `.shape`) is wrong. Inside a `with torch.autocast(...)` block the
error reads `AssertionError: A symbol [Symbol name=autocast_exit] was called while processing a primitive`, which hides
it. `atleast_3d(x)` and `atleast_3d(x, y)` are right. Found by numfuzz's op-database programs (the atleast_3d OpInfo,
which samples a list, before a bmm under bf16 autocast; Thunder main, thunder:torchcompile).

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both fail, every
executor; under thunderfx the returned shape is right but the bmm raises alike.

Exits 1 while the bug is present.
"""

import thunder
import torch

x, v, y = torch.ones(2, 2), torch.ones(3), torch.ones(2, 1, 1)


def bmm_in_autocast(x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return torch.bmm(torch.atleast_3d([x])[0], y)


cases = {
    "torch.atleast_3d([x])[0].shape": (lambda x, y: torch.atleast_3d([x])[0].shape, (x, y)),
    "torch.atleast_3d((x, x))[1].shape": (lambda x, y: torch.atleast_3d((x, x))[1].shape, (x, y)),
    "torch.atleast_2d([v])[0].shape": (lambda v, y: torch.atleast_2d([v])[0].shape, (v, y)),
    "torch.bmm(torch.atleast_3d([x])[0], y)": (lambda x, y: torch.bmm(torch.atleast_3d([x])[0], y), (x, y)),
    "the same bmm in a bf16 autocast block": (bmm_in_autocast, (x, y)),
}


def same(got, eager):
    if isinstance(eager, torch.Tensor):
        return got.dtype == eager.dtype and torch.equal(got, eager)
    return tuple(got) == tuple(eager)


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (fn, args) in cases.items():
    eager = fn(*args)
    try:
        got = thunder.jit(fn)(*args)
        ok = same(got, eager)
        print(f"{name}: {'as eager' if ok else f'{got} where eager gives {eager}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager computes, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit traces atleast_2d/atleast_3d of a sequence with its input shapes: {', '.join(failed)}"
print("OK: thunder.jit gives torch.atleast_2d and atleast_3d of a list or tuple of tensors eager's shapes")
