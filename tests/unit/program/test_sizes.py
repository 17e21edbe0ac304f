"""Second sizes: the same program with its varying dims at other sizes, well typed, never of size 1."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.sizes import MAX_ELEMENTS, draw_second_size, size_classes, varying_dims, with_input_shapes


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([None, 1, 2]))
def test_a_second_size_is_the_same_program_at_other_sizes_of_whole_size_classes(seed, classes):
    graph, _ = generate(seed, GenConfig(max_nodes=5))
    drawn = draw_second_size(graph, random.Random(seed), classes)
    if drawn is None:
        return
    second, dims = drawn
    assert lower(second) == lower(graph) and second.nodes == graph.nodes and dims == varying_dims(graph, second)
    assert all(s.numel <= MAX_ELEMENTS for s in infer_specs(second))
    moved = {graph.inputs[i].shape[d] for i, d in dims}
    assert classes is None or len(moved) <= classes
    for n in moved:  # every dim of a size that moved, moved (duck sizing gives them one symbol)
        assert set(size_classes(graph)[n]) <= set(dims)
    for i, d in dims:
        assert graph.inputs[i].shape[d] >= 2 and second.inputs[i].shape[d] >= 2


def test_a_dim_fixed_by_the_program_does_not_vary():
    """reshape to a constant shape pins the sizes it reads; the other input's dim may still move."""
    graph = Graph((TensorSpec((2, 3), "fp32"), TensorSpec((5,), "fp32")), (Node.make("reshape", [0], shape=[6]), Node.make("exp", [1])), (2, 3))
    assert with_input_shapes(graph, [(2, 4), (5,)]) is None
    second, dims = draw_second_size(graph, random.Random(0))
    assert dims == [(1, 0)] and second.inputs[0].shape == (2, 3)


def test_a_program_without_a_dim_of_two_or_more_has_no_second_size():
    graph = Graph((TensorSpec((1, 1), "fp32"),), (Node.make("exp", [0]),), (1,))
    assert draw_second_size(graph, random.Random(0)) is None
