"""The position check: the same values at two positions must give the same result under one compile."""

import numpy as np
import torch

from numfuzz.judge.position import position_dependence

ROW = np.linspace(0.1, 1.9, 19)


def _runs(target_tail_shift: float, eager_tail_shift: float = 0.0, nonfinite: bool = False):
    """One fp32 input of 19 elements whose last 3 repeat its first 3; outputs as a compile of tanh would give them."""
    x = ROW.copy()
    x[-3:] = x[:3]
    sample = [torch.tensor(x, dtype=torch.float32)]
    reference = np.tanh(x)
    eager = torch.tensor(reference, dtype=torch.float32)
    eager[-3:] = eager[-3:] * (1 + eager_tail_shift)
    target = torch.tensor(reference, dtype=torch.float32)
    target[-1] = float("nan") if nonfinite else float(target[-1]) * (1 + target_tail_shift)
    return [sample], [(eager,)], [(torch.tensor(reference),)], [(target,)]


def test_a_tail_that_differs_from_the_body_is_position_dependent():
    samples, eager, reference, target = _runs(2.0**-18)
    detail = position_dependence(samples, eager, reference, target, ["fp32"])
    assert detail is not None and "positions 0..2 and 16..18 of dim -1" in detail


def test_non_finite_in_the_tail_only_is_position_dependent():
    assert "non-finite" in position_dependence(*_runs(0.0, nonfinite=True), ["fp32"])


def test_within_the_kernel_bound_or_where_eager_differs_too_it_is_not():
    assert position_dependence(*_runs(2.0**-23), ["fp32"]) is None  # one ULP: vector and scalar libm
    assert position_dependence(*_runs(2.0**-18, eager_tail_shift=2.0**-18), ["fp32"]) is None  # eager's own seam
    samples, eager, reference, target = _runs(0.0)
    assert position_dependence(samples, eager, reference, target, ["fp32"]) is None


def test_without_repeated_values_there_is_nothing_to_compare():
    samples, eager, reference, target = _runs(2.0**-18)
    samples = [[torch.tensor(ROW, dtype=torch.float32)]]
    assert position_dependence(samples, eager, reference, target, ["fp32"]) is None


def test_positions_whose_float64_results_differ_are_not_compared():
    samples, eager, reference, target = _runs(2.0**-18)
    reference[0][0][-1] += 1e-3  # as if the program treated the two positions differently
    assert position_dependence(samples, eager, reference, target, ["fp32"]) is None
