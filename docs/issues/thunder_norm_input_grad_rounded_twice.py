"""Thunder: the input gradient of fp16 group_norm and layer_norm (batch_norm and instance_norm alike) is several times
less accurate than eager's: two partial gradients are each rounded to fp16 and then added.

Thunder's `_normalize` (which layer_norm and group_norm decompose into) takes the statistics of `a_acc = to(a, fp32)`
but normalises the fp16 input itself, `out = (a - mean) * rstd` (`_native_batch_norm` in training likewise).
Autodiff then gives `a` two cotangents: one through the subtraction's promotion of `a` to fp32 and one through
`a_acc` (the mean and variance). Each is converted back to fp16 on its own (the backward of a convert), and the two
fp16 values are added. They largely cancel (the gradient of a normalisation removes the mean and the projection on
the output), so each one's rounding, half an fp16 ULP of terms of size rstd * g, lands in a much smaller sum. Eager's
CPU kernel accumulates the whole input gradient in fp32 (from the mean and rstd it saved in fp16) and rounds once. Normalising `a_acc` instead of `a` gives one
cotangent, summed in fp32 and rounded once: with that one-line change Thunder's gradient is more accurate than eager's.

numfuzz found it through the torchcompile executor, on `group_norm(x1 * (t - rsqrt(t * t)).to(fp16), 3, eps=1.0)`
beside `div(t * t + 0.0, t * t, rounding_mode='floor')` (t = x0 in fp32; upstream gradients all ones, so the exact
gradient of x0 is 0): Thunder's gradient of x0 is 763 fp16 ULP off, eager's 32. There Inductor keeps one of the two
cotangents in fp32 (it elides the fp16 round trip inside a fused loop) and rounds the other (stored to an fp16
buffer between loops), so the other's rounding is left; with no div_floor beside it both are elided and the
gradient is exact, and with TORCHINDUCTOR_EMULATE_PRECISION_CASTS=1 both are rounded, cancel exactly and give 0.
The default executors (no Inductor) show the mechanism itself, on random inputs.

Measured on CPU, fp16, (8, 16, 32) inputs, Thunder's default executors: Thunder 0.2.6 (torch 2.9.1) and Thunder main
(0.2.7.dev0, 1e22aac; torch 2.11.0) alike. Mean error of the input gradient against float64, in fp16 ULPs, upstream
gradient 1 + randn (and 1 + 0.01 * randn, nearly constant as from a sum or mean loss): group_norm eager 0.55 (6.4),
Thunder 3.4 (129); layer_norm eager 0.84 (14), Thunder 3.0 (149); with `a_acc - mean` in `_normalize` Thunder's are
0.25 throughout. batch_norm and instance_norm (not checked here): 2.8 against eager's 0.47 and 0.65. In bf16 with the
nearly constant upstream gradient, group_norm: eager 38, Thunder 98. torch.compile (Inductor alone, torch 2.11.0)
gives eager's numbers for group_norm.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import numpy as np
import thunder
import torch
import torch.nn.functional as F


def group_norm(x):
    return F.group_norm(x, 4)


def layer_norm(x):
    return F.layer_norm(x, (32,))


def gradient(fn, x, g):
    x = x.detach().clone().requires_grad_()
    return torch.autograd.grad(fn(x), x, g.to(x.dtype))[0].double().numpy()


def ulp_fp16(reference):
    """fp16's spacing at each reference value (its subnormal spacing near zero)."""
    exponent = np.floor(np.log2(np.maximum(np.abs(reference), 2.0**-14)))
    return 2.0 ** (exponent - 10)


def mean_errors(fn, x, g):
    """Mean error of eager's and Thunder's gradients of x against float64, in fp16 ULPs."""
    exact = gradient(fn, x.double(), g.double())
    eager, compiled = gradient(fn, x, g), gradient(thunder.jit(fn), x, g)
    return [float(np.mean(np.abs(got - exact) / ulp_fp16(exact))) for got in (eager, compiled)]


torch.manual_seed(0)
print(f"torch {torch.__version__}, thunder {thunder.__version__}")
worse = []
for fn in (group_norm, layer_norm):
    for spread in (1.0, 0.01):
        x = torch.randn(8, 16, 32).half()
        g = (1 + spread * torch.randn(8, 16, 32)).half()
        eager, compiled = mean_errors(fn, x, g)
        print(f"{fn.__name__}, upstream 1 + {spread} * randn: mean error eager {eager:.3g} ULP, thunder {compiled:.3g} ULP")
        if compiled > 1.5 * eager:
            worse.append(f"{fn.__name__} (upstream 1 + {spread} * randn)")
assert not worse, f"Thunder's fp16 input gradient is less accurate than eager's: {', '.join(worse)}"
print("OK: Thunder's input gradients are as accurate as eager's")
