"""torch.compile computes wrong gradients, silently, for a batch norm whose output is viewed and permuted (a map turned
back into tokens, as CvT's attention does): relative errors above 1 for the input's, the weight's and the bias's
gradients, where eager is right. Float32, CPU. Inductor on torch 2.9.1, 2.11.0 and 2.15.0; aot_eager on 2.15.0 too.

The gradient reaching the batch norm is the cotangent of `view` and `permute`, laid out channels-last. On CPU,
`aten.native_batch_norm_backward` returns a contiguous grad_input, but its FakeTensor (meta) keeps grad_out's strides
(printed below), the likely cause: a compiled backward that reads the real grad_input by the meta's strides reads the
wrong elements. Not proven: the script shows the mismatch and the wrong gradients. The forward op has the same mismatch for a
noncontiguous input: pytorch#192668 (open), which reports it for `native_batch_norm`; this is its backward, where the
consequence is a wrong gradient rather than an error.

numfuzz's model sweep found it in CvT's training step (the query convolution's and its BatchNorm's gradients 7.5 bits
worse than eager's under inductor and thunderfx, their largest error above the gradient's own size), and reduced it to a
batch norm alone. The batch norm may be in eval mode (frozen statistics, as in fine-tuning) or training.

Measured on torch 2.9.1, 2.11.0 and 2.15.0 (CPU): all fail.

Exits 1 while the bug is present.
"""

import copy

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

torch.manual_seed(0)
C = 8
norm = torch.nn.BatchNorm2d(C).eval()
with torch.no_grad():
    norm.running_mean.uniform_(-1, 1)
    norm.running_var.uniform_(0.5, 2)
    norm.weight.uniform_(0.5, 2)
x = torch.randn(1, C, 2, 2)
upstream = torch.randn(1, 4, C)


def to_tokens(x: torch.Tensor, norm: torch.nn.Module) -> torch.Tensor:
    return norm(x).view(1, C, 4).permute(0, 2, 1)  # "b c h w -> b (h w) c"


def gradients(dtype: torch.dtype, backend: str | None) -> list[torch.Tensor]:
    module, inputs = copy.deepcopy(norm).to(dtype), x.clone().to(dtype).requires_grad_()
    fn = torch.compile(to_tokens, backend=backend) if backend else to_tokens
    (fn(inputs, module) * upstream.to(dtype)).sum().backward()
    return [inputs.grad.double(), module.weight.grad.double(), module.bias.grad.double()]


reference = gradients(torch.float64, None)
print(f"torch {torch.__version__}")
worst = {}
for backend in (None, "aot_eager", "inductor"):
    torch._dynamo.reset()
    got = gradients(torch.float32, backend)
    worst[backend] = max(((g - r).abs().max() / r.abs().max()).item() for g, r in zip(got, reference))
    print(f"{backend or 'eager'}: largest relative error of the input's, weight's and bias's gradients {worst[backend]:.3g}")

grad_out = upstream.permute(0, 2, 1).reshape(1, C, 2, 2)  # what reaches the batch norm's backward
_, mean, invstd = torch.ops.aten.native_batch_norm.default(x, norm.weight, norm.bias, norm.running_mean, norm.running_var, False, 0.1, 1e-5)
args = (grad_out, x, norm.weight, norm.running_mean, norm.running_var, mean, invstd, False, 1e-5, [True, True, True])
eager_strides = torch.ops.aten.native_batch_norm_backward.default(*args)[0].stride()
with FakeTensorMode() as mode:
    fake_strides = torch.ops.aten.native_batch_norm_backward.default(*[mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args])[0].stride()
print(f"native_batch_norm_backward's grad_input strides: eager {eager_strides}, FakeTensor {fake_strides}")
assert worst["inductor"] < 1e-4 and worst["aot_eager"] < 1e-4, "torch.compile's batch norm gradient is wrong for a permuted output"
print("OK: the compiled gradients agree with eager's")
