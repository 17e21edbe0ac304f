"""Inductor's std and var over a dim of one element return 0 where that element is inf or -inf, where eager (and
float64) give NaN (inf - mean is inf - inf): the compiled reduction of a single element is 0 whatever the element;
over two elements, [inf, 1.0], it gives NaN as eager does. Found by a Thunder-main campaign (thunder:torchcompile,
whose executor is Inductor): std(x, dim=-1, correction=0) of an fp16 -inf, listed as a NaN dropped.

Measured on torch 2.9.1 and 2.15.0 (CPU, AVX2): compiled gives 0.0. Related, not the same: pytorch#113167 (a
single-element var with negative degrees of freedom replaced by a static 0, closed), #197108 (var_mean of an empty
tensor), #183605 (fp16 var then rsqrt). No report found of this one (searched for var, std, a single element, inf and
NaN under Inductor).

Exits 1 while the bug is present.
"""

import torch

cases = {
    "std(-inf, dim=-1, correction=0) fp16": (lambda a: torch.std(a, dim=-1, correction=0), torch.tensor([float("-inf")], dtype=torch.float16)),
    "var(inf, dim=-1, correction=0) fp32": (lambda a: torch.var(a, dim=-1, correction=0), torch.tensor([float("inf")])),
    "std([inf, 1.0], dim=-1, correction=0) fp32": (lambda a: torch.std(a, dim=-1, correction=0), torch.tensor([float("inf"), 1.0])),
}
print(f"torch {torch.__version__}")
failed = []
for name, (fn, x) in cases.items():
    eager, compiled = fn(x), torch.compile(fn)(x)
    same = torch.equal(eager.isnan(), compiled.isnan())
    print(f"{name}: eager {eager.item()}, compiled {compiled.item()}")
    if not same:
        failed.append(name)
assert not failed, f"compiled drops the NaN of {'; '.join(failed)}"
print("OK: compiled std and var of one infinite element are NaN as eager's")
