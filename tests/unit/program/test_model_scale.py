"""Model-sized graphs: rows of 1024 to 32768 within a budget, fewer samples, and the run's intra-op threads."""

from __future__ import annotations

import math
import random

import pytest

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import size_key
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.model_scale import LARGE_ELEMENTS, ROWS, SAMPLE_ELEMENTS, is_large, large_shape, samples_for
from numfuzz.program.ops import infer_specs
from numfuzz.run_spec import RunMix, RunSpec, RunSpecError


def test_large_shapes_have_model_sized_rows_within_the_budget():
    rng = random.Random(0)
    shapes = [large_shape(rng) for _ in range(500)]
    assert all(min(ROWS) - 1 <= s[-1] <= max(ROWS) + 33 and math.prod(s) <= LARGE_ELEMENTS for s in shapes)
    assert {len(s) for s in shapes} == {2, 3} and max(math.prod(s) for s in shapes) > 2**20


def test_a_large_share_draws_large_graphs_and_none_without_it():
    large = [generate(seed, GenConfig(large=1.0))[0] for seed in range(20)]
    assert all(is_large(g) for g in large)
    assert all(s.numel <= LARGE_ELEMENTS for g in large for s in infer_specs(g))
    assert not any(is_large(generate(seed, GenConfig())[0]) for seed in range(50))
    assert [generate(seed, GenConfig(large=0.0))[0] for seed in range(5)] == [generate(seed, GenConfig())[0] for seed in range(5)]


def test_a_large_case_draws_fewer_samples():
    graph = next(g for g in (generate(seed, GenConfig(large=1.0))[0] for seed in range(50)) if sum(s.numel for s in g.inputs) > SAMPLE_ELEMENTS // 8)
    n = samples_for(graph, 64)
    assert 2 <= n < 64 and (n == 2 or n * sum(s.numel for s in graph.inputs) <= SAMPLE_ELEMENTS)
    small = generate(0, GenConfig())[0]
    assert samples_for(small, 64) == 64


def test_threads_are_part_of_the_run_and_of_the_case_s_name():
    run = RunSpec("inductor", device="cpu", threads=4)
    assert RunSpec.from_json(run.to_json()) == run and run.hashed() == {"threads": 4}
    assert run.compile_label() == "threads=4" and not run.default_compile
    assert RunSpec("inductor", device="cpu", threads=1).default_compile  # one thread, stated: as the workers run
    assert "threads" not in RunSpec("inductor").to_json()
    with pytest.raises(RunSpecError):
        RunSpec("inductor", threads=-1)
    with pytest.raises(RunSpecError):
        RunMix(thread_share=0.5, thread_count=0)
    assert RunMix(thread_share=1.0, thread_count=1).off  # one core: nothing to draw


def test_several_threads_sort_after_one():
    graph = generate(0, GenConfig())[0]
    one = Case(graph, [], RunSpec("inductor", threads=1))
    many = Case(graph, [], RunSpec("inductor", threads=2))
    assert size_key(one) < size_key(many)


def test_a_large_case_holds_its_values_within_the_judges_budget():
    """Every value of every sample counts (the probe exposes them all): a graph stops growing before its values pass
    the budget at the fewest samples, and a case takes no more samples than the budget holds."""
    from numfuzz.program.model_scale import JUDGE_ELEMENTS, MIN_SAMPLES, case_elements, value_elements

    wide = GenConfig(large=1.0, ops=("add", "mul", "hardtanh", "relu6", "clamp_scalar", "hardshrink"), max_nodes=12)  # each add a new input
    graphs = [generate(seed, wide)[0] for seed in range(60)] + [generate(seed, GenConfig(large=1.0, blocks=0.3))[0] for seed in range(60)]
    assert all(MIN_SAMPLES * value_elements(g) <= JUDGE_ELEMENTS for g in graphs)
    assert all(case_elements(g, samples_for(g, 64)) <= JUDGE_ELEMENTS for g in graphs if is_large(g))
    assert max(value_elements(g) for g in graphs) > JUDGE_ELEMENTS // 8  # the budget, not the draw, bounds them
