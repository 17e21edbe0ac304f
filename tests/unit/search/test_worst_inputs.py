"""The search toward the worst error, on one-op programs whose "compiled" function is a plain stand-in (no compiler)."""

import math

import numpy as np
import torch
from helpers import StandIn

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.search.worst_inputs import KEEP, sample_score, search_budget, search_worst


def _program(op: str, target) -> CompiledProgram:
    return CompiledProgram(Graph((TensorSpec((8,), "fp32"),), (Node.make(op, [0]),), (1,)), StandIn(target), "cpu")


def _sin(x):
    return torch.sin(x)


def _sin_flushing_tiny(x):  # a needle: wrong only below 2**-30 in magnitude
    return torch.where(x.abs() < 2.0**-30, torch.zeros_like(x), torch.sin(x))


def _exp_overflowing_early(x):  # a needle at the other end: inf from 2**6 up, where exp is still finite
    return torch.where(x > 64, torch.full_like(x, float("inf")), torch.exp(x))


def _normal_samples(n: int = 16) -> list[list[torch.Tensor]]:
    gen = torch.Generator().manual_seed(0)
    return [[torch.randn(8, generator=gen)] for _ in range(n)]


def _search(target, budget: int, seed: int = 0):
    return search_worst(_program("sin", target), _normal_samples(), budget, np.random.Generator(np.random.PCG64(seed)))


def test_random_samples_miss_the_needle_the_search_finds_it():
    samples = _normal_samples()
    assert all(sample_score(["fp32"], (torch.sin(s[0].double()),), (torch.sin(s[0]),), (_sin_flushing_tiny(s[0]),)) <= 1 for s in samples)
    found = _search(_sin_flushing_tiny, 32)
    assert found.samples and len(found.samples) <= KEEP and found.runs <= 32
    assert all(score > 1 for score in found.scores)
    assert all(bool((s[0].abs() < 2.0**-30).any()) for s in found.samples)
    assert all(s[0].dtype == torch.float32 for s in found.samples)


def test_a_correct_target_gives_the_search_nothing():
    for seed in range(3):
        found = _search(_sin, 32, seed)
        assert found.samples == [] and found.runs == 32


def test_non_finite_where_eager_is_finite_ends_the_search():
    found = search_worst(_program("exp", _exp_overflowing_early), _normal_samples(), 200, np.random.Generator(np.random.PCG64(1)))
    assert found.scores and found.scores[0] == math.inf and found.runs < 200


def test_the_score_is_bits_lost_to_eager():
    ref = (torch.tensor([1.0, 2.0], dtype=torch.float64),)
    exact = (torch.tensor([1.0, 2.0]),)
    off = (torch.tensor([1.0, 2.0 + 2.0**-20]),)  # 4 ULP at 2
    assert sample_score(["fp32"], ref, exact, exact) == 0.0
    assert math.isclose(sample_score(["fp32"], ref, exact, off), math.log2(4.5 / 0.5))
    assert sample_score(["fp32"], ref, exact, (torch.tensor([1.0, float("nan")]),)) == math.inf
    assert search_budget(0.5, 64) == 32 and search_budget(0.0, 64) == 0 and search_budget(0.01, 8) == 1
