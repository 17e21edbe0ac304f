"""Helpers of the float64 reference, as source text, for ops whose float64 torch kernel is not exact enough.

Each reference `fn_fp64` that uses one carries its definition (as it carries `round_to`), so a
repro script stays self-contained. "Exact enough" is measured in ULPs of fp32, the finest
dtype a program outputs: torch's float64 kernels are within a few float64 ULPs (about 1e-7
fp32 ULP) for most ops, and these helpers bring the rest there:

* `sinc_exact`: torch's sinc computes sin(pi * x) with pi * x rounded, so at nonzero integers
  it returns ~1e-17 where sinc is 0, and near large integers it loses digits. The helper
  reduces x by its nearest integer n first (exact in float64) and takes sin(pi * r) * (-1)^n.
* `digamma_exact`: torch's float64 digamma cancels near digamma's roots (1.4616..., and one in
  each (-n, -n+1)), up to ~0.5 fp32 ULP off there. Elements whose result is below 1/8 in
  magnitude are recomputed with mpmath at 80 bits, once per distinct value and out of place (a model-sized
  value near a root, with gradients, cost minutes element by element); elsewhere torch's result is within
  ~1e-12 relative (checked against mpmath in the unit tests).
* `tanhshrink_exact`: x - tanh(x) cancels for small x (x = 1e-6 loses 40 bits). Below 1/16 the
  helper sums its Taylor series, x^3/3 - 2x^5/15 + ..., to seven terms (relative error < 1e-16).
* `bce_logits_exact`: torch computes (1 - t) x - log_sigmoid(x), which cancels for x << 0 and t
  near 0 (x = -40, t = 0 gives 0 for e^-40). The helper sums non-negative terms only:
  x (1 - t) or -x t, plus log1p(e^-|x|).
* `soft_margin_exact`: log(1 + e^-yx) overflows to inf in float64 for yx < -709 where the loss
  is about -yx; the helper takes logaddexp(0, -yx).

lgamma (glibc's), erfinv (torch's rational approximation with two Newton steps), logit and the
rest run as float64 torch: the unit tests check them against mpmath.
"""

from __future__ import annotations

HELPERS = {
    "sinc_exact": '''\
def sinc_exact(x):
    """sin(pi x) / (pi x), its argument reduced by the nearest integer first (exact in float64)."""
    n = torch.round(x)
    r = x - n
    s = torch.sin(torch.pi * r) * (1 - 2 * torch.remainder(n, 2))
    return torch.where(x == 0, torch.ones_like(x), s / (torch.pi * x))
''',
    "digamma_exact": '''\
def digamma_exact(x):
    """float64 digamma; near its roots, where that cancels, mpmath at 80 bits, once per distinct value. The
    correction is a constant: the gradient stays torch's trigamma."""
    import mpmath

    y = torch.digamma(x)
    near = y.detach().abs() < 0.125
    if not near.any():
        return y
    values, where = torch.unique(x.detach()[near], return_inverse=True)
    with mpmath.workprec(80):
        exact = torch.tensor([float(mpmath.digamma(v)) for v in values.tolist()], dtype=y.dtype)
    correction = torch.zeros_like(y.detach()).masked_scatter(near, exact[where] - y.detach()[near])
    return torch.where(near, y + correction, y)
''',
    "tanhshrink_exact": '''\
def tanhshrink_exact(x):
    """x - tanh(x); below 1/16 in magnitude its Taylor series, which does not cancel."""
    z = x * x
    series = 929569 / 638512875
    for c in (-21844 / 6081075, 1382 / 155925, -62 / 2835, 17 / 315, -2 / 15, 1 / 3):
        series = series * z + c
    return torch.where(x.abs() < 0.0625, series * z * x, x - torch.tanh(x))
''',
    "bce_logits_exact": '''\
def bce_logits_exact(x, t, reduction):
    """binary_cross_entropy_with_logits as a sum of non-negative terms (for 0 <= t <= 1)."""
    loss = torch.where(x > 0, x * (1 - t), -x * t) + torch.log1p(torch.exp(-x.abs()))
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()
''',
    "soft_margin_exact": '''\
def soft_margin_exact(x, y, reduction):
    """soft_margin_loss as logaddexp(0, -y x), which does not overflow."""
    z = -y * x
    loss = torch.logaddexp(torch.zeros_like(z), z)
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()
''',
}
