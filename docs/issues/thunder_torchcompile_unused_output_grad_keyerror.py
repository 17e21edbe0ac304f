"""thunder.jit with the torchcompile executor raises `KeyError: 't4'` (a trace proxy's name) while compiling a program
that returns only the non-differentiable output of an op with two outputs, of an input that requires grad:
`torch.cummax(x, 1)[1]`, likewise cummin, median, nanmedian, mode and kthvalue with a dim (the indices), `std_mean(x)[1]`
and `linalg.slogdet(x)[1]`. Eager returns the indices; the torch executor and the default executors pass.

The mechanism: the op's backward reads the gradient of its unused differentiable output (the values). The autodiff
transform (thunder/transforms/autodiff.py) makes that gradient a zero tensor as `ltorch.zeros.bind(...)`, a bound
symbol with no subsymbols. The torchcompile fusion pass puts it in a fusion of its own, then runs `dce`, whose
`_remove_noop_subsymbols` drops a non-prim subsymbol without subsymbols as a no-op: the fusion keeps its output `t4`
with nothing computing it, and `update_fusion_call_ctx` recompiling the emptied fusion fails to read `t4`. With the
values output used too (`cummax(x, 1)` whole) no zeros are made and it passes.

Found by numfuzz (`torch.cummax(x, 1)[1]` of a (1, 1) bf16 input, with gradients; Thunder main, thunder:torchcompile).
Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): every case raises with
executors=["torchcompile"]; thunderfx with the same executor passes.

Exits 1 while the bug is present.
"""

import thunder
import torch

cases = {
    "cummax(x, 1)[1]": lambda x: torch.cummax(x, 1)[1],
    "cummin(x, 1)[1]": lambda x: torch.cummin(x, 1)[1],
    "median(x, 1)[1]": lambda x: torch.median(x, 1)[1],
    "mode(x, 1)[1]": lambda x: torch.mode(x, 1)[1],
    "kthvalue(x, 1, 1)[1]": lambda x: torch.kthvalue(x, 1, 1)[1],
    "std_mean(x)[1]": lambda x: torch.std_mean(x)[1],
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, fn in cases.items():
    x = torch.randn(2, 3, requires_grad=True)
    eager = fn(x)
    for executors in (["torchcompile"], ["torch"]):
        try:
            got = thunder.jit(fn, executors=executors)(x)
            ok = torch.equal(got, eager)
            print(f"{name}, executors={executors}: {'as eager' if ok else f'{got} where eager gives {eager}'}")
        except Exception as exc:
            ok = False
            print(f"{name}, executors={executors}: thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
        if not ok:
            failed.append(f"{name} ({executors[0]})")
assert not failed, f"thunder.jit fails on an op's unused differentiable output with gradients: {', '.join(failed)}"
print("OK: thunder.jit returns the indices with gradients on, every executor")
