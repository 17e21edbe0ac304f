"""The float64 reference computes `grouped_mm` (transformers 5's mixture-of-experts path, which its kernels take in bf16
only): each group's rows times its matrix, exactly; a model that calls it has a reference instead of an `invalid` cell."""

from __future__ import annotations

import pytest
import torch

from numfuzz.model.reference import float64_program, grouped_mm_float64

GROUPED = getattr(torch.nn.functional, "grouped_mm", None) or getattr(torch, "_grouped_mm", None)


def test_each_groups_rows_times_its_matrix_and_rows_past_the_last_group_are_zero():
    a, b = torch.randn(7, 8, dtype=torch.float64), torch.randn(3, 8, 16, dtype=torch.float64)
    out = grouped_mm_float64(a, b, offs=torch.tensor([2, 2, 6], dtype=torch.int32))
    assert torch.equal(out[:2], a[:2] @ b[0]) and torch.equal(out[2:6], a[2:6] @ b[2]) and not out[6:].any()


@pytest.mark.skipif(GROUPED is None, reason="this torch has no grouped_mm")
def test_a_captured_grouped_mm_runs_in_float64_in_the_reference():
    a, b = torch.randn(8, 16, dtype=torch.bfloat16), torch.randn(2, 16, 16, dtype=torch.bfloat16)
    offs = torch.tensor([3, 8], dtype=torch.int32)
    try:
        compiled = GROUPED(a, b, offs=offs)
    except RuntimeError as exc:  # a torch whose CPU kernel is missing or wants other sizes: nothing to compare with
        pytest.skip(f"grouped_mm does not run here: {exc}")
    reference, _ = float64_program(lambda a, b: GROUPED(a, b, offs=offs))
    exact = reference(a, b)
    torch._dynamo.reset()
    assert exact.dtype == torch.float64 and torch.allclose(exact, compiled.double(), rtol=2**-7, atol=1e-2)
