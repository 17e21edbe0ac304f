"""thunder.jit computes the method `x.where(condition, y)` as `torch.where(x, condition, y)`: torch documents
`Tensor.where(condition, y)` as `torch.where(condition, self, y)`, but Thunder registers its `where(pred, a, b)` symbol
as the method too (`torchsymbol(torch.where, is_method=True)`), so the tensor the method is called on becomes the
predicate. Found by numfuzz's op-database programs (the where OpInfo, whose samples call the method; Thunder main,
thunder:torchcompile: `x.where(c, x)` of an int32 x raises `Expected pred to be a tensor with dtype bool, but found dtype
thunder.dtypes.int32`).

A float or integer x raises that error; a bool x is silently wrong: with x = [True, False], c = [False, True] and
y = [True, True], eager gives [True, False] (c picks x where True) and thunder.jit [False, True]. `torch.where(c, x, y)`
is right.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0): both wrong, every
executor. Under thunderfx (Dynamo first) all pass.

Exits 1 while the bug is present.
"""

import thunder
import torch

cases = {
    "x.where(c, y), bool x (silent)": (torch.tensor([True, False]), torch.tensor([False, True]), torch.tensor([True, True])),
    "x.where(c, y), float x": (torch.tensor([1.0, 2.0]), torch.tensor([False, True]), torch.tensor([3.0, 4.0])),
    "x.where(c, y), int32 x": (torch.tensor([1, 2], dtype=torch.int32), torch.tensor([False, True]), torch.tensor([3, 4], dtype=torch.int32)),
}
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
failed = []
for name, (x, c, y) in cases.items():
    eager = x.where(c, y)
    try:
        got = thunder.jit(lambda a, b, d: a.where(b, d))(x, c, y)
        ok = torch.equal(got, eager)
        print(f"{name}: {'as eager' if ok else f'{got.tolist()} where eager gives {eager.tolist()}'}")
    except Exception as exc:
        ok = False
        print(f"{name}: eager gives {eager.tolist()}, thunder.jit raises {type(exc).__name__}: {str(exc).splitlines()[0]}")
    if not ok:
        failed.append(name)
assert not failed, f"thunder.jit computes x.where(c, y) as torch.where(x, c, y): {', '.join(failed)}"
print("OK: thunder.jit computes x.where(c, y) as torch.where(c, x, y), as eager does")
