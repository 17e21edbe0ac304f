"""Under CPU autocast, F.affine_grid of an fp32 theta is fp16 in eager and fp32 compiled (found by numfuzz's autocast programs, torch 2.15.0).

affine_grid (aten::affine_grid_generator) is on none of autocast's CPU lists (bmm is on the lower-precision one,
grid_sampler on the fp32 one), and the autocast docs say an unlisted op runs "in the type defined by their inputs":
fp32, what torch.compile returns (inductor and aot_eager alike). Eager returns fp16 (bf16 under bf16 autocast)
because affine_grid_generator's C++ kernel (CompositeExplicitAutograd) calls bmm, which autocast reaches; under
tracing (fake tensors, any TorchDispatchMode) it does not. torch.linalg.pinv does the same through its matmul, and
upstream's test_ops.py skips its fake-autocast test on CPU ("TODO: investigate/fix"; PR #178277 adds XPU, PR #85043
describes the mechanism). Compiled follows the documentation, so this is no Inductor bug; the script fails while
eager and compiled disagree. Fails on torch 2.9.1 and 2.15.0.
"""

import torch
import torch.nn.functional as F

theta = torch.tensor([[[1.0, 0.5, 0.0], [0.0, 1.0, 0.25]]])


def f(t):
    with torch.autocast("cpu", dtype=torch.float16):
        return F.affine_grid(t, [1, 1, 2, 2], align_corners=True)


eager, compiled = f(theta).dtype, torch.compile(f)(theta).dtype
print(torch.__version__, "eager", eager, "compiled", compiled)
assert compiled == eager, f"compiled affine_grid is {compiled}, eager {eager}"
