"""Strided input layouts: stored in the input's spec, rebuilt exactly from the stored bits, drawn by the generator."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from numfuzz.corpus.case import Case, CaseError
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.layout import Layout, LayoutError, apply_layout, conform
from numfuzz.program.values import round_to
from numfuzz.targets.eager import Eager

LAYOUTS = [
    Layout.make(2, perm=[1, 0]),
    Layout.make(3, perm=[2, 0, 1]),
    Layout.make(3, step=[1, 3, 2], offset=5),
    Layout.make(3, expand=[1]),
    Layout.make(3, perm=[1, 2, 0], step=[2, 1, 1], expand=[2], offset=1),
    Layout.make(3, gap=[0, 12, 0], offset=12),  # base[:, 1] of a (2, 2, 3, 4) base
    Layout.make(3, perm=[2, 0, 1], step=[1, 2, 1], gap=[5, 0, 1], offset=300),  # as_strided of a larger base
]


def _values(shape: tuple[int, ...], layout: Layout) -> torch.Tensor:
    x = torch.arange(float(np.prod(shape))).reshape(shape) * 0.25 - 3.0
    return torch.from_numpy(conform(x.numpy(), layout))


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: json.dumps(layout.to_json()))
def test_stored_bits_and_layout_give_the_same_strides_and_values(layout):
    shape = (3, 4) if layout.perm == (1, 0) else (2, 3, 4)
    spec = TensorSpec(shape, "fp32", layout)
    graph = Graph((spec,), (Node.make("exp", [0]),), (1,))
    values = round_to(_values(shape, layout).numpy(), spec)
    case = Case.from_tensors(graph, [[values]], "eager")
    again = Case.from_json(json.loads(json.dumps(case.to_json())))
    assert again.graph.inputs[0].layout == layout and again.content_hash() == case.content_hash()
    stored = again.tensors()[0][0]
    assert torch.equal(stored, values) and stored.is_contiguous()  # the bits are the logical values
    view = apply_layout(stored, again.graph.inputs[0].layout)
    assert torch.equal(view, values) and view.storage_offset() == layout.offset
    perm, step, expand, _, gap = layout.full(len(shape))
    for d in range(len(shape)):
        assert (view.stride(d) == 0) == (d in expand)
    memory_order = [d for d in sorted(range(len(shape)), key=lambda d: -view.stride(d)) if d not in expand]
    assert memory_order == [d for d in perm if d not in expand]
    if any(s > 1 for s in step) or layout.offset or any(gap):
        assert torch.isnan(torch.as_strided(view, (view.untyped_storage().nbytes() // 4,), (1,), 0)).any()  # the gaps hold NaN
    assert not view.is_contiguous()


def test_every_run_gets_the_layout_and_the_judge_sees_the_same_values():
    spec = TensorSpec((3, 4), "fp32", Layout.make(2, perm=[1, 0]))
    graph = Graph((spec,), (Node.make("mul_scalar", [0], value=2.0),), (1,))
    seen = []

    class Recording(Eager):
        def prepare(self, fn, device):
            return lambda *xs: (seen.append([x.stride() for x in xs]), fn(*xs))[1]

    program = CompiledProgram(graph, Recording(), "cpu")
    x = torch.arange(12.0).reshape(3, 4)
    program.prepare()
    assert torch.equal(program.run([x])[0], program.eager([x])[0]) and seen == [[(1, 3)]]
    assert torch.equal(program.reference([x])[0], 2 * x.double())


def test_a_plain_layout_is_absent_from_json_so_old_cases_keep_their_hash():
    plain = TensorSpec((2, 3), "bf16", Layout())
    assert plain.layout is None and plain.to_json() == {"shape": [2, 3], "dtype": "bf16"}
    assert TensorSpec.from_json({"shape": [2, 3], "dtype": "bf16"}) == plain
    strided = TensorSpec((2, 3), "bf16", Layout.make(2, step=[2, 1]))
    assert strided.to_json()["layout"] == {"step": [2, 1]} and TensorSpec.from_json(strided.to_json()) == strided
    assert Layout.make(2, perm=[0, 1], step=[1, 1]).plain  # defaults spelled out are still plain
    cases = [
        Case.from_tensors(Graph((spec,), (Node.make("neg", [0]),), (1,)), [[torch.ones(2, 3, dtype=torch.bfloat16)]], "eager") for spec in (plain, strided)
    ]
    assert [c.to_json()["schema"] for c in cases] == [2, 3]  # an older numfuzz refuses a strided case instead of running it contiguous
    assert Case.from_json(cases[1].to_json()).graph.inputs[0].layout == strided.layout


@pytest.mark.parametrize(
    "data, message",
    [
        ({"perm": [0, 0]}, "not a permutation"),
        ({"step": [1]}, "needs 2 steps"),
        ({"step": [1, 0]}, "each 1..64"),
        ({"expand": [2]}, "outside"),
        ({"offset": -1}, "offset"),
        ({"stride": [1, 1]}, "unknown fields"),
        ({"gap": [1]}, "needs 2 gaps"),
        ({"gap": [-1, 0]}, "each 0.."),
        ({"gap": [3, 0], "expand": [0]}, "none along an expanded dim"),
        ({"offset": 2**40}, "offset"),
        ([1, 0], "not an object"),
        ({"perm": "10"}, "not a list of integers"),
    ],
)
def test_a_malformed_layout_is_refused(data, message):
    with pytest.raises(LayoutError, match=message):
        Layout.from_json(data, 2)
    with pytest.raises(GraphError, match=message):
        TensorSpec.from_json({"shape": [3, 4], "dtype": "fp32", "layout": data})


def test_an_expanded_input_must_hold_equal_values_along_its_expanded_dim():
    spec = TensorSpec((2, 3), "fp32", Layout.make(2, expand=[0]))
    graph = Graph((spec,), (Node.make("neg", [0]),), (1,))
    data = Case.from_tensors(graph, [[torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 4.0]])]], "eager").to_json()
    with pytest.raises(CaseError, match="sample 0: input x0's values differ along dim \\[0\\]"):
        Case.from_json(data)
    assert conform(np.array([[1.0, 2.0], [3.0, 4.0]]), spec.layout).tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_the_generator_draws_layouts_last_and_with_a_modest_chance():
    laid, inputs = 0, 0
    for seed in range(300):
        graph, recipes = generate(seed, GenConfig(layouts=0.1, views=0.0))
        plain, _ = generate(seed, GenConfig(layouts=0.0, views=0.0))
        assert [s.with_layout(None) for s in graph.inputs] == list(plain.inputs) and graph.nodes == plain.nodes  # only layouts differ
        inputs += len(graph.inputs)
        laid += sum(s.layout is not None for s in graph.inputs)
        for s in graph.inputs:
            if s.layout is not None:
                view = apply_layout(torch.zeros(s.shape), s.layout)
                assert s.dtype != "i64" and s.shape and (not view.is_contiguous() or view.storage_offset() > 0)  # it makes a difference
    assert 0.04 < laid / inputs < 0.12  # 0.1 of the float inputs of rank >= 1
