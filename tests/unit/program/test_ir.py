import json

import pytest
from hypothesis import given, settings

from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.ops import infer_specs, own_ops
from numfuzz.strategies import graphs


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_json_round_trip_keeps_graph_and_hash(graph):
    again = Graph.from_json(json.loads(json.dumps(graph.to_json())))
    assert again == graph
    assert again.content_hash() == graph.content_hash()
    infer_specs(again)  # generated graphs are well typed


def silu_mul() -> Graph:
    specs = (TensorSpec((2, 2), "bf16"), TensorSpec((2, 2), "bf16"))
    return Graph(specs, (Node.make("silu", [0]), Node.make("mul", [1, 2])), (3,))


def test_hash_is_stable_across_versions():
    # Case files are named by this hash: changing the canonical form orphans every corpus.
    assert silu_mul().content_hash() == "c8ef36495e766db9e889b9ef311b8fb89e1b5bf06947bee2a742a9d17b991fb0"


def _sliced(x: TensorSpec = TensorSpec((4, 3), "fp32"), node: Node | None = None) -> Graph:
    node = node or Node.make("slice", [0], dim=0, start=0, stop=2, step=1)
    return Graph((x, TensorSpec((2, 3), "fp32")), (node, Node.make("add", [2, 1])), (3,))


def test_equal_graphs_hash_equal_whatever_the_attribute_order():
    reordered = Node.make("slice", [0], step=1, stop=2, start=0, dim=0)
    assert reordered == _sliced().nodes[0]
    assert _sliced(node=reordered).content_hash() == _sliced().content_hash()


@pytest.mark.parametrize(
    "changed",
    [
        _sliced(node=Node.make("slice", [0], dim=0, start=0, stop=2, step=2)),  # an attr's value
        _sliced(node=Node.make("slice", [0], dim=0, start=0, stop=2)),  # an attr left out
        _sliced(x=TensorSpec((4, 3), "bf16")),  # a dtype
        _sliced(x=TensorSpec((3, 3), "fp32")),  # a shape
        _sliced(node=Node.make("slice", [1], dim=0, start=0, stop=2, step=1)),  # an arg
        Graph(_sliced().inputs, (_sliced().nodes[0], Node.make("sub", [2, 1])), (3,)),  # an op
        Graph(_sliced().inputs, _sliced().nodes, (2, 3)),  # the outputs
    ],
)
def test_one_change_changes_the_hash(changed):
    assert changed != _sliced()
    assert changed.content_hash() != _sliced().content_hash()


def test_forward_reference_is_rejected():
    with pytest.raises(GraphError):
        Graph((TensorSpec((2,), "fp32"),), (Node.make("neg", [1]),), (1,))


def test_unknown_op_and_bad_shapes_are_rejected():
    x = (TensorSpec((2, 3), "fp32"), TensorSpec((4, 3), "fp32"))
    with pytest.raises(GraphError, match="unknown op"):
        infer_specs(Graph(x, (Node.make("frobnicate", [0]),), (2,)))
    with pytest.raises(GraphError, match="broadcast"):
        infer_specs(Graph(x, (Node.make("add", [0, 1]),), (2,)))
    with pytest.raises(GraphError, match="one dtype"):
        infer_specs(Graph((x[0], TensorSpec((5, 3), "bf16")), (Node.make("linear", [0, 1]),), (2,)))


def test_unknown_dtype_is_rejected():
    with pytest.raises(ValueError, match="unknown dtype"):
        TensorSpec((2,), "fp8")


def test_every_op_has_a_lowering():
    from numfuzz.program.ops import OPS

    assert {name for name, spec in own_ops().items() if not spec.call} == {"cast", "slice"}  # the two lowered by hand
    assert all(spec.lower is not None for name, spec in OPS.items() if name not in own_ops())  # a database op's node holds its call
