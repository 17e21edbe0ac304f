"""A bf16 conv2d on CPU computes wrong values, silently, for a channels_last input whose output is one column wide
(out_w == 1) with a stride above 1: torch.nn.functional.conv2d of a (1, 8, 8, 8) input and an (8, 8, 8, 8) weight,
stride 8 (a patch embedding or SegFormer's attention's sequence reduction, one patch), is off by more than the output's
own size (relative error 1.6) in channels_last, and right (1e-3) for the same values in NCHW, or with
torch.backends.mkldnn disabled.

oneDNN picks `brg_conv_fwd:avx512_core_bf16` for the channels_last (acdb) source; NCHW takes `jit_bf16` and is right.
With ONEDNN_MAX_CPU_ISA=AVX512_CORE (no bf16 instructions) or AVX2 both are right: a machine without avx512_bf16 does
not show it. Two output rows of one column (oh=2, ow=1) fail too; ow=2, or stride 1, are right.

torch.compile hands its convolutions channels_last inputs, so a compiled bf16 model meets it where eager's NCHW does
not: numfuzz's model sweep found SegFormer's forward less accurate under inductor, thunderfx and Thunder's
torchcompile executor alike, at this convolution (565 ULP; its output element -0.038 computed as 0.100).

The same class as pytorch#169688 (open) and its PR #188426 (open: bf16 BRGEMM convolution wrong for out_w == 1 and
stride_w > 1 with oneDNN 3.12): that PR guards 5-D convolutions (conv3d) only, on avx10_1_512_amx; this is conv2d,
channels_last, on avx512_core_bf16 (AMD EPYC). pytorch#163347 (open, a 2x2 bf16 conv on AMD) gives the right 4.0 here.

Measured on torch 2.9.1, 2.11.0 and 2.15.0 (CPU, AMD EPYC with avx512_bf16): all three fail.

Exits 1 while the bug is present (on a CPU with avx512_bf16).
"""

import torch

F = torch.nn.functional
torch.manual_seed(0)
x = torch.randn(1, 8, 8, 8).bfloat16()
w = (torch.randn(8, 8, 8, 8) / 23).bfloat16()
reference = F.conv2d(x.double(), w.double(), stride=8)


def relative_error(got: torch.Tensor) -> float:
    return ((got.double() - reference).abs().max() / reference.abs().max()).item()


nchw = F.conv2d(x, w, stride=8)
channels_last = F.conv2d(x.contiguous(memory_format=torch.channels_last), w, stride=8)
with torch.backends.mkldnn.flags(enabled=False):
    without_onednn = F.conv2d(x.contiguous(memory_format=torch.channels_last), w, stride=8)
print(f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}")
print(f"float64      {[round(v, 3) for v in reference.flatten().tolist()]}")
print(f"channels_last {[round(v, 3) for v in channels_last.flatten().tolist()]}")
print(
    f"relative error: NCHW {relative_error(nchw):.3g}, channels_last {relative_error(channels_last):.3g}, "
    f"channels_last without oneDNN {relative_error(without_onednn):.3g}"
)
assert relative_error(channels_last) < 0.02, "bf16 conv2d in channels_last with one output column and stride > 1 is wrong"
print("OK: channels_last agrees with float64 to bf16's rounding")
