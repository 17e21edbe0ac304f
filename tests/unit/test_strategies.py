"""The strategies draw every generator choice and small inputs' values from Hypothesis, so shrinking is structural."""

from __future__ import annotations

import numpy as np
from hypothesis import find, given, settings
from hypothesis import strategies as st

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.ops import OPS
from numfuzz.program.values import Recipe
from numfuzz.strategies import VALUE_CHOICES, HypothesisRandom, HypothesisValues, draw_inputs, graphs, programs

QUIET = settings(max_examples=300, deadline=None, database=None, derandomize=True)


@settings(max_examples=100, deadline=None, database=None)
@given(st.data())
def test_the_adapter_keeps_random_s_contracts(data):
    rng = HypothesisRandom(data.draw)
    assert 0.0 <= rng.random() < 1.0 and 2.0 <= rng.uniform(2.0, 3.0) <= 3.0
    assert 1 <= rng.randint(1, 4) <= 4 and rng.randrange(3, 9, 2) in (3, 5, 7) and rng.randrange(5) in range(5)
    picked = rng.choices("abcd", [0, 1, 0, 2], k=20)
    assert set(picked) <= {"b", "d"}  # a zero weight is never chosen
    assert set(rng.choices("xy", cum_weights=[0, 5])) == {"y"}
    drawn = rng.sample(range(10), 4)
    assert len(set(drawn)) == 4 and set(drawn) <= set(range(10))
    items = list(range(7))
    rng.shuffle(items)
    assert sorted(items) == list(range(7))


def test_the_simplest_choices_are_the_first_ones():
    rng = HypothesisRandom(lambda strategy: find(strategy, lambda _: True, settings=QUIET))
    assert rng.random() > 0.99  # so `random() < p` branches are not taken
    assert rng.randint(2, 9) == 2 and rng.choice("xyz") == "x" and rng.choices("abc", [0, 3, 1]) == ["b"]
    items = list(range(5))
    rng.shuffle(items)
    assert items == list(range(5)) and rng.sample("abc", 2) == ["a", "b"]
    values = HypothesisValues(lambda strategy: find(strategy, lambda _: True, settings=QUIET))
    assert list(values.normal(0.0, 3.0, 2)) == [0.0, 0.0] and values.uniform(-1.0, 1.0) == 0.0


def test_the_simplest_program_is_one_op_on_one_element():
    graph = find(graphs(), lambda g: True, settings=QUIET)
    assert len(graph.nodes) == 1 and graph.nodes[0].op in OPS and [s.shape for s in graph.inputs] == [(1,)], graph  # its dtype: where shrinking stops
    program = find(programs(), lambda p: True, settings=QUIET)
    assert len(program.graph.nodes) == 1 and [s.shape for s in program.graph.inputs] == [(1,)]


def test_shrinking_goes_to_the_fewest_nodes_that_keep_the_property():
    program = find(programs(max_nodes=6), lambda p: len(p.graph.nodes) >= 3, settings=QUIET)
    assert len(program.graph.nodes) == 3
    # among a few ops: whether 300 derandomized examples meet softmax in the whole table is luck
    softmax = find(programs(max_nodes=6, ops=("neg", "exp", "add", "softmax")), lambda p: any(n.op == "softmax" for n in p.graph.nodes), settings=QUIET)
    assert [n.op for n in softmax.graph.nodes] == ["softmax"]


def test_input_values_shrink_to_the_one_that_matters():
    # among a few pure ops: which op of the whole table a derandomized search meets first, and whether the shrinker then
    # also shrinks its shape (an in-place op's 4-d input stayed so where Thunder was imported), is luck
    some = programs(max_nodes=3, ops=("neg", "exp", "add", "mul"))
    program = find(some, lambda p: bool((p.inputs[0][0].double().abs() > 1.0).any()), settings=QUIET)
    x = program.inputs[0][0].double()
    assert int((x != 0).sum()) == 1 and x.numel() == 1


@settings(max_examples=10, deadline=None, database=None)
@given(st.data())
def test_inputs_past_the_budget_are_drawn_from_a_seed(data):
    graph = Graph((TensorSpec((2, 3), "fp32"), TensorSpec((20, 20), "fp32")), (Node.make("add", [0, 1]),), (2,))
    small, large = draw_inputs(data.draw, graph, [Recipe("normal")] * 2, 1)[0]
    assert small.shape == (2, 3) and large.shape == (20, 20) and 20 * 20 > VALUE_CHOICES
    assert np.unique(large.numpy()).size > 200  # a seeded draw, not one element per choice


def test_ops_limit_the_op_table():
    @settings(max_examples=30, deadline=None, database=None)
    @given(programs(ops=("exp", "add")))
    def only(program):
        assert {n.op for n in program.graph.nodes} <= {"exp", "add", "abs"}  # abs: what makes a positive input

    only()
