"""Inductor: uint8 bilinear upsampling rounds unlike eager's kernel, by up to 1 (pytorch#113024, open).

Eager's CPU bilinear upsampling of uint8 is a native integer kernel (fixed-point weights, PR #90771); Inductor and
aot_eager run the decomposition, which interpolates in float and rounds back. The two differ by 1 at some elements:
upsample_bilinear (align_corners=True) of a (2, 1) column [1, 0] to (5, 5) gives the row of exact value 0.5 as 1 in
eager and 0 compiled. Upstream's word on #113024: a difference of 1 is expected of uint8 rounding, as between the
native kernel and a float path; eager's own values here are no more exact (align_corners=False: 45.9 is 45 in eager,
46 compiled). numfuzz found it with `F.upsample_bilinear(x, size=(5, 5))` of a uint8 (2, 2, 2, 1) input, a 30-minute
torch 2.15.0 campaign. Measured on CPU with torch 2.9.1 and 2.15.0.

Raises AssertionError while eager and compiled differ; exits 0 once they agree.
"""

import warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore", message=".*upsample_bilinear is deprecated.*")
x = torch.tensor([[[[1], [0]]]], dtype=torch.uint8)


def f(x):
    return F.upsample_bilinear(x, size=(5, 5))


eager, got = f(x), torch.compile(f, backend="inductor", fullgraph=True)(x)
exact = F.interpolate(x.double(), size=(5, 5), mode="bilinear", align_corners=True)
print(f"exact {exact[0, 0, :, 0].tolist()}\neager {eager[0, 0, :, 0].tolist()}\ninductor {got[0, 0, :, 0].tolist()}")
print(f"torch {torch.__version__}")
assert torch.equal(eager, got), f"compiled uint8 upsample_bilinear differs from eager's at {int((eager != got).sum())} of {eager.numel()} elements"
print("OK: compiled uint8 bilinear upsampling matches eager's")
