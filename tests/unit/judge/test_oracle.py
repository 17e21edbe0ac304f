import math

import numpy as np
import pytest
import torch

from numfuzz.judge import oracle
from numfuzz.judge.oracle import combine, compare_output, ulp, ulp_error
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import FORMATS, promote

BF16 = FORMATS["bf16"]


def bf16(x: np.ndarray) -> np.ndarray:
    return torch.from_numpy(x).to(torch.bfloat16).double().numpy()


def test_ulp_of_known_values():
    assert ulp(np.array([1.0]), BF16)[0] == 2.0**-7
    assert ulp(np.array([1.5]), BF16)[0] == 2.0**-7
    assert ulp(np.array([-2.0]), BF16)[0] == 2.0**-6
    assert ulp(np.array([0.0]), BF16)[0] == 2.0 ** (-126 - 7)  # subnormal spacing
    assert ulp(np.array([1.0]), FORMATS["fp32"])[0] == 2.0**-23
    assert ulp(np.array([1000.0]), FORMATS["fp16"])[0] == 0.5


def test_correct_rounding_is_within_half_an_ulp():
    rng = np.random.default_rng(0)
    # fp32-representable values: torch rounds float64 to bf16 through fp32 (twice).
    exact = (rng.normal(0, 1, 100_000) * 10.0 ** rng.uniform(-30, 30, 100_000)).astype(np.float32).astype(np.float64)
    err = ulp_error(bf16(exact), exact, BF16)
    assert err.max() <= 0.5
    assert err.max() > 0.49  # and it does get close


def test_one_extra_rounding_is_less_accurate():
    rng = np.random.default_rng(1)
    exact = rng.normal(0, 1, 4096)
    eager = bf16(exact)  # correctly rounded: <= 0.5 ulp
    # Round to a coarser grid first (as fp16 -> bf16 would), then to bf16: up to ~1 ulp.
    twice = bf16(np.round(exact * 2**9) / 2**9 + rng.uniform(-1, 1, 4096) * 2**-10 * np.abs(exact))
    out = compare_output(0, "bf16", exact, eager, twice)
    assert out.eager_max_ulp <= 0.5 < out.target_max_ulp
    assert out.verdict == Verdict.LESS_ACCURATE.value
    swapped = compare_output(0, "bf16", exact, twice, eager)
    assert swapped.verdict == Verdict.MORE_ACCURATE.value


def test_negligible_shift_is_not_a_finding():
    # The fp32 sigmoid decomposition: worse on 1661 elements, better on 833, mean 0.386 -> 0.395,
    # the same max. Significant by a sign test, negligible in effect.
    exact = np.linspace(1.0, 1.999, 65536)
    u = 2.0**-23
    eager_err = np.full(65536, 0.386)
    target_err = eager_err.copy()
    target_err[:1661] += 0.3
    target_err[1661 : 1661 + 833] -= 0.05
    eager_err[-1] = target_err[-1] = 1.92
    out = compare_output(0, "fp32", exact, exact + eager_err * u, exact + target_err * u)
    assert out.worse == 1661 and out.better == 833
    assert out.verdict == Verdict.EQUAL.value


def test_gross_error_near_zero_is_found_with_few_elements():
    exact = np.array([1e-6, 2e-6, -3e-6, 0.5])
    eager = bf16(exact)
    target = eager.copy()
    target[0] = 0.0  # exp(x) - 1 style cancellation
    out = compare_output(0, "bf16", exact, eager, target)
    assert out.verdict == Verdict.LESS_ACCURATE.value
    assert out.worst_element == 0


def test_nonfinite_target_where_eager_is_finite():
    exact = np.array([1.0, 2.0, 3.0])
    target = exact.copy()
    target[1] = np.inf
    out = compare_output(0, "fp32", exact, exact, target)
    assert out.verdict == Verdict.NONFINITE.value and out.target_nonfinite == 1


def test_nonfinite_eager_with_finite_target_is_more_accurate():
    exact = np.array([1.0, 2.0, 3.0])
    eager = exact.copy()
    eager[2] = np.nan
    assert compare_output(0, "fp32", exact, eager, exact).verdict == Verdict.MORE_ACCURATE.value


def test_elements_without_a_representable_reference_are_left_out():
    # eager does not agree with the reference's class at the inf and the nan, and 1e39 is finite past bf16's range:
    # no class is judged there either (`judge.nonfinite_class`)
    exact = np.array([np.inf, np.nan, 1e39, 1.0])
    out = compare_output(0, "bf16", exact, np.array([-np.inf, 0, np.inf, 1.0]), np.array([0, 0, 1.0, 1.0]))
    assert out.elements == 1 and out.verdict == Verdict.EQUAL.value and out.class_lost == 0
    assert combine([compare_output(0, "bf16", exact[:3], exact[:3], exact[:3])]) == Verdict.INVALID


def test_case_verdict_is_the_most_severe_output():
    exact = np.array([1.0, 2.0])
    ok = compare_output(0, "fp32", exact, exact, exact)
    bad = compare_output(1, "fp32", exact, exact, np.array([1.0, np.nan]))
    assert combine([ok, bad]) == Verdict.NONFINITE
    assert combine([ok]) == Verdict.EQUAL


def test_bits_lost():
    exact = np.array([1.0])
    out = compare_output(0, "bf16", exact, exact, exact + 2 * 2.0**-7)
    assert oracle.bits_lost(out) == pytest.approx(math.log2(2 / 0.5))
    # Eager non-finite somewhere: the means over the finite elements decide.
    exact = np.array([1.0, 2.0])
    out = compare_output(0, "bf16", exact, np.array([np.inf, 2.0]), exact + 4 * 2.0**-6)
    assert math.isinf(out.eager_max_ulp) and oracle.bits_lost(out) == pytest.approx(math.log2(4 / 0.5))


def test_promotion():
    assert promote("bf16", "fp16") == "fp32"
    assert promote("bf16", "bf16") == "bf16"
    assert promote("fp16", "fp32") == "fp32"
    for a in ("bf16", "fp16", "fp32"):
        for b in ("bf16", "fp16", "fp32"):
            x, y = (
                torch.ones(1, dtype=getattr(torch, {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[a])),
                torch.ones(1, dtype=getattr(torch, {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[b])),
            )
            assert str((x + y).dtype) == {"bf16": "torch.bfloat16", "fp16": "torch.float16", "fp32": "torch.float32"}[promote(a, b)]


@pytest.mark.parametrize("dtype, expected", [("fp32", Verdict.EQUAL), ("bf16", Verdict.LESS_ACCURATE)])
def test_faithful_fp32_kernels_are_not_findings_but_bf16_extra_rounding_is(dtype, expected):
    # Inductor's fp32 cos on 0.5: 0.8 ULP against eager's 0.2, every time. Both are within
    # 1 ULP (faithful), as eager's own fp32 kernels promise; in bf16 the same is a real loss.
    exact = np.full(64, 1.0) + np.arange(64) * 2.0**-12
    u = float(ulp(exact[:1], FORMATS[dtype])[0])
    out = compare_output(0, dtype, exact, exact + 0.2 * u, exact + 0.8 * u)
    assert out.verdict == expected.value
    # Past the floor the same pattern is a finding in fp32 too.
    assert compare_output(0, "fp32", exact, exact + 0.2 * u, exact + 1.6 * u).verdict == Verdict.LESS_ACCURATE.value


def test_bits_lost_do_not_explode_when_the_reference_is_zero():
    """A reference of exactly 0 with eager exact: a tiny target error is not 113 bits lost."""
    reference, eager, target = np.zeros(4), np.zeros(4), np.array([0.0, 1e-40, 0.0, 0.0])
    errors = compare_output(0, "fp32", reference, eager, target)
    assert errors.target_max_rel < 1.0  # relative to the smallest normal, not to 0
    assert oracle.bits_lost(errors) <= 24.0  # capped at fp32's precision
    cancels = compare_output(0, "fp32", np.array([1.5e-8, 1.0]), np.array([1.5e-8, 1.0]), np.array([0.0, 1.0]))
    assert oracle.bits_lost(cancels) >= 20  # a real cancellation still loses (nearly) every bit


def test_two_nonzero_values_at_an_exact_zero_are_compared_at_the_output_scale():
    """A constant row normalised (layer_norm): exactly 0, eager 6.7e-6, the fused kernel -3.8e-5 (bf16, the rest near 1).

    In ULPs of 0 (the smallest subnormal) that is 4e35 against 7e34, a 'gross' loss; at the output's
    scale both are a fraction of an ULP, and the target is no finding there.
    """
    rng = np.random.default_rng(0)
    exact = np.concatenate([np.zeros(3), rng.uniform(-1.5, 1.5, 61)])
    eager = bf16(exact)
    eager[:3] = 6.7e-6
    target = eager.copy()
    target[:3] = -3.77e-5
    assert compare_output(0, "bf16", exact, eager, target).verdict != Verdict.LESS_ACCURATE.value
    target[:3] = 0.05  # far beyond rounding at the output's scale: still a finding
    assert compare_output(0, "bf16", exact, eager, target).verdict == Verdict.LESS_ACCURATE.value
