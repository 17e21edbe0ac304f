"""Inductor: torch.any(x, dim=()) and torch.all(x, dim=()) reduce every dim, where eager reduces none.

The dims overloads `any.dims` and `all.dims` (PR #110310) take an empty dim list as no reduction: eager, the meta
function, `torch._refs.any` (`if isinstance(dim, (list, tuple)) and len(dim) == 0: result = a_.clone()`) and
`backend="aot_eager"` return x's shape, each element tested for nonzero; the docs say the output has len(dim) fewer
dims. Inductor's `reduce_any` lowering hands dim=() to `make_reduction`, whose `_validate_reduction_axis` reads an
empty axis list as every axis (sum's convention, pytorch#29137): the compiled result is a 0-dim any of the whole
tensor. On torch 2.9.1 compiling fails instead (`AssertionError: size=[], stride=[2, 1]`: the lowering's shape is not
the meta's); on 2.11.0 and 2.15.0 the wrong shape is returned silently. `sum` and `amax` with dim=() reduce every dim
in eager too, and agree compiled.

Found by numfuzz's op-database programs (`torch.any(x0, dim=(), keepdim=False)` of a (1, 1) fp32 input) through
Thunder's torchcompile executor (Thunder main 0.2.7.dev0, 1e22aac, on torch 2.11.0; Thunder's own torch executor
agrees with eager). Measured on CPU with torch 2.9.1, 2.11.0 and 2.15.0.

Raises AssertionError (or the compile error) while the bug is present; exits 0 once fixed.
"""

import torch

x = torch.tensor([[0.0, 1.0], [0.0, 0.0]])
cases = {"torch.any(x, dim=())": lambda x: torch.any(x, dim=()), "torch.all(x, dim=())": lambda x: torch.all(x, dim=())}

failed = []
for label, f in cases.items():
    eager, got = f(x), torch.compile(f, backend="inductor", fullgraph=True)(x)
    print(f"torch {torch.__version__} {label}: eager {tuple(eager.shape)} {eager.tolist()}  inductor {tuple(got.shape)} {got.tolist()}")
    if eager.shape != got.shape or not torch.equal(eager, got):
        failed.append(label)

assert not failed, f"compiled result differs from eager's: {', '.join(failed)}"
print("OK: an empty dim list reduces nothing, as in eager")
