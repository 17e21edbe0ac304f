"""Inputs that view a larger tensor: a layout's gaps and storage offset give the strides and offset a select, an index
or an as_strided of a bigger tensor gives; such views are drawn by default, from their own stream, and old layouts
keep their JSON."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from numfuzz.corpus.case import Case
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.layout import VIEW_MEMORY, Layout, apply_layout, conform, draw_layout, draw_view
from numfuzz.reduce.passes.layouts import PlainLayouts
from numfuzz.repro.script import layouts_source


def _values(shape: tuple[int, ...], layout: Layout | None = None) -> torch.Tensor:
    x = np.asarray(np.arange(float(np.prod(shape))).reshape(shape) * 0.5 - 2.0)
    return torch.from_numpy(conform(x, layout))


def _memory(view: torch.Tensor) -> torch.Tensor:
    return torch.as_strided(view, (view.untyped_storage().nbytes() // view.element_size(),), (1,), 0)


@pytest.mark.parametrize(
    "make_view, layout",
    [
        (lambda base: base[:, 2], Layout.make(2, gap=[0, 10], offset=10)),  # select of an inner dim: rows over the gap
        (lambda base: base[3], Layout.make(2, offset=45)),  # select of the outermost dim: an offset alone
        (lambda base: base[1, :, 4], Layout.make(1, step=[5], offset=19)),  # a column: a step (the row's length) and an offset
        (lambda base: base[2, 1, 3], Layout.make(0, offset=38)),  # every dim indexed: a 0-d value in the middle of memory
        (lambda base: base.as_strided((3, 4), (7, 1), 5), Layout.make(2, gap=[0, 3], offset=5)),  # padded rows
        (lambda base: base.transpose(0, 2)[1:, :, 2], Layout.make(2, perm=[1, 0], gap=[1, 0], offset=31)),
    ],
    ids=["select-inner", "select-outer", "two-indices", "0d", "as-strided", "transposed-select"],
)
def test_a_layout_with_gaps_and_an_offset_is_the_view_torch_makes(make_view, layout):
    view = make_view(torch.arange(60.0).reshape(4, 3, 5))
    laid = apply_layout(view.contiguous(), layout)
    assert torch.equal(laid, view)
    assert laid.stride() == view.stride() and laid.storage_offset() == view.storage_offset()
    assert "gapped" in layout.kinds() or layout.offset


def test_what_a_view_skips_holds_nan_so_a_kernel_that_reads_it_shows():
    laid = apply_layout(torch.zeros(3, 4), Layout.make(2, gap=[0, 3], offset=5))
    memory = _memory(laid)
    used = torch.zeros_like(memory, dtype=torch.bool)
    for i in range(3):
        used[5 + 7 * i : 5 + 7 * i + 4] = True
    assert not memory[used].isnan().any() and memory[~used].isnan().all() and (~used).sum() == 5 + 3 * 2 + 3


def test_a_layout_without_a_gap_keeps_its_json_and_one_with_a_gap_gains_the_key():
    assert Layout.make(2, step=[2, 1], offset=1).to_json() == {"step": [2, 1], "offset": 1}
    gapped = Layout.make(2, gap=[0, 3], offset=5)
    assert gapped.to_json() == {"offset": 5, "gap": [0, 3]} and Layout.from_json(gapped.to_json(), 2) == gapped
    assert Layout.make(2, gap=[0, 0]).plain


def test_dropping_and_adding_dims_keep_the_gaps_of_the_dims_kept():
    layout = Layout.make(3, gap=[0, 4, 2], offset=7)
    assert layout.without_dims({0}, 3) == Layout.make(2, gap=[4, 2], offset=7)
    assert layout.with_leading_dim(3) == Layout.make(4, gap=[0, 0, 4, 2], offset=7)


def _assert_a_view_of(view: Layout, layout: Layout | None, rank: int) -> None:
    """`view` views a larger tensor laid out as `layout`: its memory order and expanded dims, its steps (the innermost
    maybe times a select's size), its gaps or more, and its offset or more; and differs from it."""
    (perm, step, expand, offset, gap), (perm_0, step_0, expand_0, offset_0, gap_0) = view.full(rank), (layout or Layout()).full(rank)
    assert (perm, expand) == (perm_0, expand_0) and offset >= offset_0 and view != (layout or Layout())
    assert all(s % s0 == 0 for s, s0 in zip(step, step_0)) and all(g >= g0 for g, g0 in zip(gap, gap_0))


SHAPES = [(), (1,), (5,), (3, 4), (2, 1, 6), (2, 3, 2, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_drawn_view_holds_the_values_at_an_offset_or_over_gaps(shape):
    rng, kinds = random.Random(str(shape)), set()
    for _ in range(60):
        before = draw_layout(rng, shape) if shape and rng.random() < 0.5 else None
        layout = draw_view(rng, shape, before)
        x = _values(shape, layout)
        laid = apply_layout(x, layout)
        assert torch.equal(laid, x) and (laid.storage_offset() > 0 or not laid.is_contiguous())  # it addresses memory otherwise
        _assert_a_view_of(layout, before, len(shape))
        assert laid.untyped_storage().nbytes() // laid.element_size() <= VIEW_MEMORY
        kinds.add("offset" if layout.offset > (before or Layout()).offset else "")
        kinds.add("gapped" if layout.gap else "")
    assert "offset" in kinds and ("gapped" in kinds or sum(n > 1 for n in shape) < 1 or len(shape) < 2)


def test_a_view_of_a_model_sized_input_stays_within_its_memory():
    rng, spans = random.Random(0), set()
    for _ in range(40):
        layout = draw_view(rng, (2048, 1024))
        spans.add(layout.span((2048, 1024)))
        assert layout.span((2048, 1024)) == apply_layout(torch.zeros(2048, 1024), layout).untyped_storage().nbytes() // 4
    assert max(spans) <= VIEW_MEMORY and 2**21 + 1 in spans  # one element in, where a larger base would pass it


def test_the_generator_draws_views_from_their_own_stream_on_top_of_the_other_layouts():
    viewed, inputs, zero_d = 0, 0, 0
    for seed in range(300):
        graph, _ = generate(seed, GenConfig(views=0.05))
        without, _ = generate(seed, GenConfig(views=0.0))
        assert graph.nodes == without.nodes and [s.with_layout(None) for s in graph.inputs] == [s.with_layout(None) for s in without.inputs]
        for spec, before in zip(graph.inputs, without.inputs):
            inputs += 1
            if spec.layout == before.layout:
                continue
            viewed += 1
            zero_d += not spec.shape
            _assert_a_view_of(spec.layout, before.layout, len(spec.shape))
            assert spec.dtype != "i64"
    assert 0.02 < viewed / inputs < 0.08 and zero_d  # 0.05 of the float inputs, 0-d ones among them


def test_a_spec_with_a_view_round_trips():
    spec = TensorSpec((3, 4), "bf16", Layout.make(2, gap=[0, 3], offset=5))
    assert TensorSpec.from_json(spec.to_json()) == spec and spec.to_json()["layout"] == {"offset": 5, "gap": [0, 3]}


def test_a_layout_spanning_past_what_a_file_may_hold_is_refused():
    with pytest.raises(GraphError, match="spans"):
        TensorSpec((64, 64, 64), "fp32", Layout.make(3, gap=[0, 2**20, 0]))


def test_the_repro_script_builds_the_same_view():
    specs = [TensorSpec((3, 4), "fp32", Layout.make(2, perm=[1, 0], gap=[2, 0], offset=9)), TensorSpec((), "bf16", Layout.make(0, offset=3))]
    namespace: dict = {"torch": torch}
    exec(layouts_source(specs), namespace)
    xs = [torch.randn(3, 4), torch.tensor(1.5, dtype=torch.bfloat16)]
    for got, want in zip(namespace["lay_out"](xs), [apply_layout(x, s.layout) for x, s in zip(xs, specs)]):
        assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset() and torch.equal(got, want)
        assert torch.equal(_memory(got).isnan(), _memory(want).isnan())


def test_the_minimiser_takes_a_view_away_as_any_layout():
    spec = TensorSpec((3, 4), "fp32", Layout.make(2, gap=[0, 3], offset=5))
    case = Case.from_tensors(Graph((spec,), (Node.make("exp", [0]),), (1,)), [[torch.randn(3, 4)]], "synthetic")
    (plain,) = PlainLayouts().candidates(case)
    assert plain.graph.inputs[0].layout is None and torch.equal(plain.tensors()[0][0], case.tensors()[0][0])
