"""torch.compile(fullgraph=True) fails on `torch.take(x, i)` with a 0-d integer index `i`, which eager computes:
aten.take's decomposition is `x.reshape(-1)[i]`, and indexing with a 0-d integer tensor reads its value
(`tensor.item()`, a data-dependent symbol), so tracing raises GuardOnDataDependentSymNode (torch 2.11.0:
`BackendCompilerFailed: backend='inductor' raised: GuardOnDataDependentSymNode: Could not extract specialized integer
from data-dependent expression u0`; torch 2.9.1: `Unsupported: Backend compiler exception`). `x[i]` alone fails the same
way, under aot_eager too; a 1-d index passes, and without fullgraph Dynamo graph-breaks and passes.

Thunder's torchcompile executor compiles its fusions with fullgraph=True, so `thunder.jit(f,
executors=[torchcompile])` fails on the same call; Thunder's own torch executor passes. Found by numfuzz's
op-database programs (the `take` OpInfo, minimised to a 0-d input and a 0-d index) on Thunder main, thunder:torchcompile.

Upstream: pytorch PR #186138 ("Support data-dependent 0-dim tensor indexing under tracing", 2026-06) describes and
fixes this mechanism (the C++ indexing path forced a concrete int through tensor.item<int64_t>()).

Measured: fails on torch 2.9.1 and 2.11.0, passes on 2.15.0 (CPU).

Exits 1 while the bug is present.
"""

import torch


def take(x, i):
    return torch.take(x, i)


def index(x, i):
    return x[i]


x, i = torch.arange(3.0), torch.tensor(1)
print(f"torch {torch.__version__}; x = arange(3.0), i = tensor(1), 0-d")
failed = []
for name, fn, backend in (("take", take, "inductor"), ("x[i]", index, "inductor"), ("x[i]", index, "aot_eager")):
    torch._dynamo.reset()
    eager = fn(x, i)
    try:
        ok = torch.equal(torch.compile(fn, fullgraph=True, backend=backend)(x, i), eager)
        print(f"{name} ({backend}, fullgraph): {'as eager' if ok else 'differs from eager'}")
    except Exception as exc:
        ok = False
        print(f"{name} ({backend}, fullgraph): eager gives {eager.item()}, compiling raises {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
    if not ok:
        failed.append(f"{name} ({backend})")
assert not failed, f"torch.compile(fullgraph=True) fails on a 0-d integer index: {', '.join(failed)}"
print("OK: torch.compile(fullgraph=True) takes a 0-d integer index as eager does")
