"""A batch runs as many rounds as its member with the most samples: `_by_rounds` keeps the work it repeats of a member with
fewer (a large case's few samples) within REPEAT_ELEMENTS, and otherwise keeps the members together."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.model_scale import value_elements
from numfuzz.runner.batch import REPEAT_ELEMENTS, _by_rounds


def _case(samples: int, rows: int):
    graph = Graph((TensorSpec((rows, 1024), "fp32"),), (Node("tanh", (0,), ()),), (1,))
    return SimpleNamespace(samples=[None] * samples, graph=graph)


def test_a_large_case_with_few_samples_leaves_the_batch_of_small_ones():
    cases = [_case(64, 1) for _ in range(5)] + [_case(2, 2048)]  # 2M elements a value, 62 rounds past its own
    assert _by_rounds(list(range(6)), cases) == [[0, 1, 2, 3, 4], [5]]


def test_large_cases_together_make_their_own_batch_and_small_repeats_stay():
    cases = [_case(64, 1), _case(60, 4), _case(8, 2048), _case(3, 2048), _case(64, 2)]  # 4M elements a value
    assert _by_rounds(list(range(5)), cases) == [[0, 1, 4], [2, 3]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 64), st.sampled_from([1, 16, 256, 2048, 8192])), min_size=1, max_size=10))
def test_every_member_once_and_no_member_repeated_past_the_limit(drawn):
    cases = [_case(samples, rows) for samples, rows in drawn]
    parts = _by_rounds(list(range(len(cases))), cases)
    assert sorted(k for part in parts for k in part) == list(range(len(cases)))
    for part in parts:
        rounds = max(len(cases[k].samples) for k in part)
        assert all((rounds - len(cases[k].samples)) * value_elements(cases[k].graph) <= REPEAT_ELEMENTS for k in part)
        assert part == sorted(part)  # the members keep the order they came in
    # members of one sample count share a part whatever their size
    by_count = {}
    for k, case in enumerate(cases):
        by_count.setdefault(len(case.samples), set()).add(next(i for i, part in enumerate(parts) if k in part))
    assert all(len(where) == 1 for where in by_count.values())
