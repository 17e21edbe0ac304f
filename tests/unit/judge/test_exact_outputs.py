"""Integer outputs judged exactly: how many elements differ from eager's, and by how much, counted without rounding."""

from __future__ import annotations

import torch

from numfuzz.judge.exact_outputs import exact_words
from numfuzz.judge.oracle import compare_output
from numfuzz.judge.verdicts import Verdict


def test_int64_values_near_the_top_one_apart_differ_by_one():
    top = torch.iinfo(torch.int64).max
    eager = [torch.tensor([top, 5, top - 1])]
    target = [torch.tensor([top - 1, 5, top])]  # float64 would call each pair equal
    errors = compare_output(0, "i64", eager, eager, target)
    assert errors.verdict == Verdict.EXACT_MISMATCH.value and errors.worse == 2 and errors.elements == 3
    assert errors.target_max_abs == 1.0
    assert exact_words("db.neg", errors) == "db.neg: values differ from eager's at 2 of 3 elements (by up to 1)"


def test_equal_bools_are_equal():
    mask = [torch.tensor([True, False, True])]
    errors = compare_output(0, "bool", mask, mask, [m.clone() for m in mask])
    assert errors.verdict == Verdict.EQUAL.value and errors.worse == 0
