"""thunder.jit fails on `F.nll_loss(x, target)` called without `ignore_index`, the way PyTorch's own MNIST example calls it:
Thunder's `nll_loss` symbol defaults `ignore_index` to None (torch's default is -100), resolves None to -1 for its own
decomposition, and the torch executor hands the None on to torch (`_nll_loss_transform`), which raises
`TypeError: nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not NoneType`. With the torchcompile
executor the same call reaches Dynamo, which reports `Unsupported: TypeError when making fake tensor call`.
`nn.NLLLoss()` passes its ignore_index (-100) explicitly and runs; so does `F.nll_loss(..., ignore_index=-100)`.

Found by numfuzz's op-database programs (the nll_loss OpInfo's form without ignore_index, Thunder main, thunder:torchcompile).
Thunder's own nll_loss OpInfo always passes ignore_index (-100 or 3), so its tests never call the default.

Exits 1 while the bug is present.
"""

import thunder
import torch
import torch.nn.functional as F
from thunder.extend import get_executor

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
torch.manual_seed(0)
log_probs = F.log_softmax(torch.randn(4, 10), dim=1)
target = torch.tensor([1, 0, 4, 9])
eager = F.nll_loss(log_probs, target)

failed = []
for executor in ("torch", "torchcompile"):
    for name, fn in {
        "F.nll_loss(x, t)": lambda x, t: F.nll_loss(x, t),
        "F.nll_loss(x, t, ignore_index=-100)": lambda x, t: F.nll_loss(x, t, ignore_index=-100),
    }.items():
        try:
            got = thunder.jit(fn, executors=[get_executor(executor)])(log_probs, target)
            outcome = f"{got.item():.6f} (eager {eager.item():.6f})"
            ok = torch.allclose(got, eager)
        except Exception as exc:
            outcome, ok = f"{type(exc).__name__}: {str(exc).splitlines()[0][:110]}", False
        print(f"{executor:>12} executor, {name:<36} {outcome}")
        if not ok:
            failed.append((executor, name))
assert not failed, f"thunder.jit fails on {failed}"
print("OK: nll_loss without ignore_index runs under thunder.jit")
