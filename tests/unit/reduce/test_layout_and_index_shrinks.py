"""The minimiser and strided layouts and indices: the plain layout as a shrink, layouts kept through other edits, indices kept in range."""

from __future__ import annotations

import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import size_key
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.layout import Layout
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.valid_inputs import input_problem
from numfuzz.reduce.case_edit import reshape_inputs, select, stack_samples
from numfuzz.reduce.passes.layouts import PlainLayouts
from numfuzz.reduce.schedule import SCHEDULE
from numfuzz.reduce.shrinker import Check, shrink

PERMUTED = Layout.make(2, perm=[1, 0])


def strided_case(samples: int = 2) -> Case:
    inputs = (TensorSpec((3, 4), "fp32", PERMUTED), TensorSpec((3, 4), "fp32", Layout.make(2, step=[2, 1])))
    nodes = (Node.make("mul", [0, 1]), Node.make("exp", [2]), Node.make("tanh", [3]))
    rows = [[torch.randn(3, 4, generator=torch.Generator().manual_seed(s + k)) for k in (0, 10)] for s in range(samples)]
    return Case.from_tensors(Graph(inputs, nodes, (4,)), rows, "synthetic")


def test_the_plain_layout_is_smaller_and_tried_first_for_every_input():
    case = strided_case()
    candidates = list(PlainLayouts().candidates(case))
    assert all(size_key(c) < size_key(case) for c in candidates)
    assert [[s.layout for s in c.graph.inputs] for c in candidates] == [[None, None], [None, case.graph.inputs[1].layout], [PERMUTED, None]]
    assert all(torch.equal(a, b) for c in candidates for a, b in zip(c.tensors()[0], case.tensors()[0]))  # the same values


def test_a_finding_that_needs_its_layout_keeps_it_and_shrinks_the_rest():
    needs_permuted = lambda c: Check(any(s.layout is not None and s.layout.perm for s in c.graph.inputs) and any(n.op == "exp" for n in c.graph.nodes))  # noqa: E731
    result = shrink(strided_case(), needs_permuted, SCHEDULE)
    layouts = [s.layout for s in result.case.graph.inputs]
    assert [n.op for n in result.case.graph.nodes] == ["exp"] and layouts == [PERMUTED]
    anything = shrink(strided_case(), lambda c: Check(any(n.op == "exp" for n in c.graph.nodes)), SCHEDULE)
    assert all(s.layout is None for s in anything.case.graph.inputs)  # a finding that does not need it loses it


def test_edits_keep_a_layout_where_it_still_means_something():
    case = strided_case()
    chosen = select(case, [(0, 1), (1, 1)], [0, 2])
    assert [s.layout for s in chosen.graph.inputs] == [s.layout for s in case.graph.inputs] and chosen.graph.inputs[0].shape == (3, 2)
    stacked = stack_samples(case)
    assert stacked.graph.inputs[0].layout == Layout.make(3, perm=[0, 2, 1]) and stacked.graph.inputs[1].layout == Layout.make(3, step=[1, 2, 1])
    single = Case.from_tensors(
        Graph((TensorSpec((1, 4), "fp32", Layout.make(2, step=[1, 3])),), (Node.make("exp", [0]),), (1,)), [[torch.ones(1, 4)]], "synthetic"
    )
    squeezed = reshape_inputs(single, {0: (4,)})
    assert squeezed.graph.inputs[0].layout == Layout.make(1, step=[3])  # a size-1 dim went, the step stays
    flattened = reshape_inputs(case, {0: (12,), 1: (12,)})
    assert flattened.graph.inputs[0].layout is None


def index_case() -> Case:
    """gather then nll_loss: the indices' bounds are dims of the float inputs, which the shapes pass shrinks."""
    inputs = (TensorSpec((4, 6), "fp32"), TensorSpec((4, 5), "i64"), TensorSpec((4,), "i64"))
    nodes = (Node.make("gather", [0, 1], dim=1), Node.make("nll_loss", [3, 2], reduction="sum", ignore_index=-100), Node.make("exp", [4]))
    g = torch.Generator().manual_seed(0)
    rows = [[torch.randn(4, 6, generator=g), torch.randint(0, 6, (4, 5), generator=g), torch.randint(0, 5, (4,), generator=g)] for _ in range(2)]
    return Case.from_tensors(Graph(inputs, nodes, (5,)), rows, "synthetic")


def test_shrinking_keeps_every_index_in_range():
    seen = []

    def predicate(case: Case) -> Check:
        seen.append(case)
        if not any(n.op == "nll_loss" for n in case.graph.nodes):
            return Check(False)
        fn = compile_source(lower(case.graph))
        for sample in case.tensors():
            assert input_problem(case.graph, sample) is None
            fn(*sample)  # eager raises for an index out of range
        return Check(True)

    result = shrink(index_case(), predicate, SCHEDULE)
    assert len(seen) > 10 and [n.op for n in result.case.graph.nodes] == ["nll_loss"]
    (x,) = [k for k, s in enumerate(result.case.graph.inputs) if s.dtype == "fp32"]
    (t,) = [k for k, s in enumerate(result.case.graph.inputs) if s.dtype == "i64"]
    assert result.case.graph.inputs[x].shape[-1] == 1 and result.case.tensors()[0][t].tolist() == [0]  # one class left: its target is 0
