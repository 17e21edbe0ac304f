"""The generic shrinker on synthetic predicates: no compiler anywhere in this file."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import input_values, size_key, smaller, value_cost
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.reduce.case_edit import all_values
from numfuzz.reduce.ddmin import chunks, ddmin
from numfuzz.reduce.schedule import SCHEDULE
from numfuzz.reduce.shrinker import Check, PassError, shrink
from numfuzz.strategies import programs

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def as_case(program) -> Case:
    return Case.from_tensors(program.graph, program.inputs, "synthetic")


def has_op(op: str):
    return lambda case: Check(any(n.op == op for n in case.graph.nodes))


def has_large_input(threshold: float):
    return lambda case: Check(bool(np.any(np.abs(input_values(case)) >= threshold)))


def eager_output_at_least(threshold: float):
    """Some element of some eager output is finite and >= threshold in magnitude (runs eager on the CPU)."""

    def predicate(case: Case) -> Check:
        fn = compile_source(lower(case.graph))
        with torch.no_grad():
            for sample in case.tensors():
                for out in fn(*sample):
                    values = out.double()
                    if bool((values.isfinite() & (values.abs() >= threshold)).any()):
                        return Check(True)
        return Check(False)

    return predicate


@st.composite
def case_and_predicate(draw):
    case = as_case(draw(programs(max_nodes=5, max_dim=4, samples=draw(st.integers(1, 3)))))
    kind = draw(st.sampled_from(["op", "large-input", "eager-output"]))
    if kind == "op":
        op = draw(st.sampled_from(sorted({n.op for n in case.graph.nodes})))
        return case, has_op(op), kind
    if kind == "large-input":
        values = np.abs(input_values(case))
        finite = values[np.isfinite(values)]
        return case, has_large_input(float(finite.max()) / 2 if finite.size and finite.max() > 0 else 0.0), kind
    return case, eager_output_at_least(0.5), kind


def _assume_holds(case, predicate):
    from hypothesis import assume

    assume(predicate(case).keep)


@SETTINGS
@given(case_and_predicate())
def test_shrinking_never_grows_and_keeps_the_predicate(data):
    case, predicate, kind = data
    _assume_holds(case, predicate)
    result = shrink(case, predicate, SCHEDULE)
    assert predicate(result.case).keep
    assert size_key(result.case) <= size_key(case)
    keys = [size_key(case)] + [step.size for step in result.steps]
    assert all(b < a for a, b in zip(keys, keys[1:])), "every accepted step is strictly smaller"
    assert keys[-1] == size_key(result.case)
    if kind == "op":  # the optimum is that op alone
        assert len(result.case.graph.nodes) == 1


@SETTINGS
@given(case_and_predicate(), st.integers(0, 12))
def test_shrinking_terminates_within_its_budget(data, budget):
    case, predicate, _ = data
    _assume_holds(case, predicate)
    calls = []

    def counted(c: Case) -> Check:
        calls.append(1)
        return predicate(c)

    result = shrink(case, counted, SCHEDULE, max_cost=budget)
    assert len(calls) == result.cost <= budget
    assert predicate(result.case).keep


@SETTINGS
@given(case_and_predicate())
def test_a_second_run_finds_nothing_more(data):
    case, predicate, _ = data
    _assume_holds(case, predicate)
    first = shrink(case, predicate, SCHEDULE)
    assert not first.exhausted
    second = shrink(first.case, predicate, SCHEDULE)
    assert second.steps == []
    assert second.case.content_hash() == first.case.content_hash()


def _one_op_case(values: list[float], dtype: str = "fp32") -> Case:
    spec = TensorSpec((len(values),), dtype)
    graph = Graph((spec,), (Node.make("exp", [0]),), (1,))
    return Case.from_tensors(
        graph, [[torch.tensor(values, dtype=torch.float64).to(getattr(torch, {"fp32": "float32", "bf16": "bfloat16"}[dtype]))]], "synthetic"
    )


def test_value_cost_orders_zero_one_powers_of_two_then_longer_values():
    costs = value_cost(np.array([0.0, 1.0, -1.0, 2.0, 0.5, 1024.0, 3.0, 1.0009765625, 1.3, math.inf, math.nan]))
    assert list(costs[:3]) == sorted(costs[:3]) and costs[0] == 0
    assert costs[1] < costs[3] == costs[4] < costs[5] < costs[6]  # +-1, then powers of two by |exponent|
    assert costs[6] < costs[7] < costs[8]  # 2 significant bits < 11 < 24
    assert costs[9] == costs[10] > costs[8]


def test_size_key_prefers_fewer_distinct_and_simpler_values():
    assert size_key(_one_op_case([1.0, 1.0])) < size_key(_one_op_case([1.0, 2.0]))
    assert size_key(_one_op_case([2.0, 2.0])) < size_key(_one_op_case([3.0, 3.0]))
    assert size_key(_one_op_case([3.0])) < size_key(_one_op_case([0.0, 0.0]))  # fewer elements first


def test_values_simplify_toward_powers_of_two_and_one_distinct_value():
    case = _one_op_case([3.7, -12.3, 0.1234, 5.5])
    result = shrink(case, has_large_input(10.0), SCHEDULE)
    assert input_values(result.case).tolist() == [16.0]  # one element: the simplest value >= 10


class _Grows:
    name = "grows"

    def candidates(self, case):
        yield case  # the case itself: not strictly smaller


def test_a_pass_that_does_not_shrink_is_an_error():
    with pytest.raises(PassError, match="grows"):
        shrink(_one_op_case([1.0]), lambda c: Check(True), [_Grows()])


def test_smaller_rejects_equal_and_larger():
    small, big = _one_op_case([1.0]), _one_op_case([1.0, 2.0])
    assert smaller(big, small) is None and smaller(small, small) is None and smaller(small, big) is small


def test_ddmin_finds_a_one_minimal_subset():
    wanted = {3, 11, 12}
    base = _one_op_case([float(i) for i in range(16)])

    def keep(case, indices):
        values = input_values(case)[indices]
        spec = TensorSpec((len(indices),), "fp32")
        graph = Graph((spec,), case.graph.nodes, case.graph.outputs)
        return Case.from_tensors(graph, [[torch.tensor(values, dtype=torch.float32)]], "synthetic")

    gen = ddmin(base, lambda c: c.graph.inputs[0].shape[0], keep)
    current, answer = base, None
    try:
        candidate = next(gen)
        while True:
            answer = wanted <= set(input_values(candidate).tolist())
            if answer:
                current = candidate
            candidate = gen.send(answer)
    except StopIteration as stop:
        assert stop.value is current
    assert sorted(input_values(current).tolist()) == sorted(float(w) for w in wanted)
    assert chunks(5, 2) == [[0, 1, 2], [3, 4]]


def test_cut_nodes_replaces_a_node_by_its_eager_values():
    spec = TensorSpec((3,), "fp32")
    graph = Graph((spec,), (Node.make("exp", [0]), Node.make("neg", [1])), (2,))
    case = Case.from_tensors(graph, [[torch.tensor([0.0, 1.0, 2.0])]], "synthetic")
    from numfuzz.reduce.case_edit import cut_nodes

    cut = cut_nodes(case, all_values(case), {0})
    assert [n.op for n in cut.graph.nodes] == ["neg"]
    assert torch.equal(cut.tensors()[0][0], torch.exp(torch.tensor([0.0, 1.0, 2.0])))


@SETTINGS
@given(st.data())
def test_shrinking_stops_as_soon_as_the_case_is_small_enough(data):
    case = as_case(data.draw(programs(max_nodes=5, max_dim=4, samples=2)))
    op = data.draw(st.sampled_from(sorted({n.op for n in case.graph.nodes})))
    judged = []  # (nodes, kept) for every candidate judged, in order

    def predicate(candidate: Case) -> Check:
        check = has_op(op)(candidate)
        judged.append((len(candidate.graph.nodes), check.keep))
        return check

    result = shrink(case, predicate, SCHEDULE, enough=lambda c: len(c.graph.nodes) <= 1)
    assert not result.exhausted and [n.op for n in result.case.graph.nodes] == [op]  # that op alone
    if len(case.graph.nodes) == 1:
        assert judged == [] and result.case is case and result.steps == []
    else:  # nothing was judged after the first one-op case was kept, and that case is the result
        assert judged.index((1, True)) == len(judged) - 1
        assert [step.size[0] for step in result.steps].count(1) == 1 and result.steps[-1].size == size_key(result.case)
