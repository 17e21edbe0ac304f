"""thunder.jit refuses two documented call forms that eager accepts (found by numfuzz's op-database programs on
Thunder main, thunder:torchcompile):

* `torch.flip(x, dims=(0,))`: `TypeError: flip() got an unexpected keyword argument 'dims'` (Thunder's flip takes the
  dims positionally, `flip(a, *dims)`);
* `torch.take_along_dim(x, idx)` without `dim` (torch flattens both, its documented default `dim=None`):
  `TypeError: take_along_dim() missing 1 required positional argument: 'dim'`.

Kin of the keyword rows in docs/bugs.md (`nan_to_num`, `round(decimals=)`, `index_add(alpha=)`).
"""

import thunder
import torch

x = torch.arange(6.0).reshape(2, 3)
idx = torch.tensor([[0, 2], [1, 0]])
failed = []
for name, fn in (("flip(dims=)", lambda t: torch.flip(t, dims=(0,))), ("take_along_dim without dim", lambda t: torch.take_along_dim(t, idx))):
    try:
        got = thunder.jit(fn)(x)
        assert torch.equal(got, fn(x)), name
        print(name, "ok")
    except Exception as exc:
        print(name, "raises", f"{type(exc).__name__}: {exc}".splitlines()[0])
        failed.append(name)
print(thunder.__version__, torch.__version__)
assert not failed, failed
