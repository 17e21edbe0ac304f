"""Size-0 dims: a graph drawn with an empty first input runs, and on a correct target every case is clean, empty
outputs judged equal (shapes, dtypes and a clean run) and any output that is not empty judged as usual."""

from __future__ import annotations

from collections import Counter

from numfuzz.corpus.make import make_case
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve


def test_graphs_with_a_size_0_dim_are_clean_on_eager_and_some_outputs_are_not_empty():
    verdicts, nonempty = Counter(), 0
    for seed in range(40):
        case = make_case(seed, RunSpec("eager", device="cpu", samples=2), GenConfig(empty=1.0, max_nodes=4))
        assert 0 in case.graph.inputs[0].shape
        outcome = run_case(case, resolve("eager"))
        verdicts[outcome.verdict.value] += 1
        nonempty += any(o.elements for o in outcome.outputs or [])
    assert set(verdicts) <= {"equal", "invalid"} and verdicts["equal"] >= 30, verdicts
    assert nonempty >= 3  # a reduction over the empty dim (a sum of nothing is 0) gives values to judge
