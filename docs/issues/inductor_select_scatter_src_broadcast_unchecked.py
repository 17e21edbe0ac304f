"""torch.compile's select_scatter broadcasts a src whose shape is not the selected slice's, where eager raises
`expected src to have a size equal to the slice of self`: a 0-d src into a (3, 1) tensor's row, a (1,) src into a
(3, 2) tensor's row, a (2,) src into a (3, 2, 2) tensor's (2, 2) slice each fill the slice. aot_eager raises as eager
does, so the check is lost in Inductor's lowering. A src of a size that does not broadcast ((3,) into a row of 2) fails
to compile instead.

Found by a Thunder-main campaign (thunder:torchcompile, whose executor is Inductor): the select_scatter OpInfo's
`torch.select_scatter(x, src, 0, 2)` of a bf16 (3, 1) x and a 0-d src. Measured on torch 2.9.1 and 2.15.0 (CPU, AVX2).
Related, not the same op: pytorch#144183 (index_copy loses its shape check under Inductor, closed), #195579 (addmm and
addmv skip their broadcast check, closed). No report of select_scatter found (searched for select_scatter, src size
and the message under torch.compile).

Exits 1 while the bug is present.
"""

import torch


def fn(x, src):
    return torch.select_scatter(x, src, 0, 2)


print(f"torch {torch.__version__}")
failed = []
for x_shape, src_shape in [((3, 1), ()), ((3, 2), (1,)), ((3, 2, 2), (2,))]:
    x, src = torch.zeros(x_shape), torch.ones(src_shape)
    try:
        fn(x, src)
        continue  # eager computes it: nothing to check
    except RuntimeError as exc:
        said = str(exc).splitlines()[0]
    torch._dynamo.reset()
    try:
        got = torch.compile(fn)(x, src)
    except Exception:
        print(f"{x_shape} <- {src_shape}: eager and compiled raise")
        continue
    print(f"{x_shape} <- {src_shape}: eager raises ({said}); compiled returns {got.tolist()}")
    failed.append(f"{x_shape} <- {src_shape}")
assert not failed, f"compiled select_scatter broadcasts a src eager refuses: {', '.join(failed)}"
print("OK: compiled select_scatter refuses what eager refuses")
