"""The shape rules of pooling and interpolation against torch: over drawn attributes and the forms a captured module
passes (pairs, `stride=None`, a None output size), each rule gives eager's shape, and refuses what eager refuses
(and an empty result, which eager gives for an output size 0)."""

import random
import warnings

import pytest
import torch

from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import OPS, infer_node

CAPTURED = {
    "max_pool2d": {"kernel_size": [1, 2, 3, 4, (2, 3)], "stride": [None, 1, 2, 3, (1, 2)], "padding": [0, 1, 2, (1, 0)]},
    "avg_pool2d": {"kernel_size": [1, 2, 3, (3, 1)], "stride": [None, (), 1, 2, 3], "padding": [0, 1, 2, (0, 0)]},
    "adaptive_avg_pool2d": {"output_size": [1, 3, (None, 2), (2, None), (0, 2)]},
    "interpolate": {"size": [None, 4, (3, 5)], "scale_factor": [None, 2, 0.5, (1.5, 2.0)]},
}


@pytest.mark.parametrize("name", sorted(CAPTURED))
def test_the_shape_rule_is_torchs(name):
    rng, agreed, refused = random.Random(name), 0, 0
    for _ in range(300):
        spec = TensorSpec(tuple(rng.randint(1, 6) for _ in range(rng.choice([3, 4]))), "fp32")
        try:
            attrs = OPS[name].draw_attrs(rng, [spec])
        except GraphError:
            continue
        if rng.random() < 0.5:
            attrs.update({key: rng.choice(values) for key, values in CAPTURED[name].items()})
        node = Node.make(name, [0], **attrs)
        try:
            want = infer_node(node, [spec]).shape
        except GraphError:
            want = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = tuple(compile_source(lower(Graph((spec,), (node,), (1,))))(torch.randn(spec.shape))[0].shape)
        except (RuntimeError, ValueError):
            got = None
        got = None if got is not None and 0 in got else got  # an empty result (output size 0) the table refuses
        assert want == got, (spec.shape, attrs)
        agreed, refused = agreed + (got is not None), refused + (got is None)
    assert agreed > 50 and refused > 5


@pytest.mark.parametrize("name", sorted(CAPTURED))
def test_a_node_without_an_attribute_its_call_names_is_refused(name):
    """The shape rule reads every attribute the call template writes, so a case file lacking one fails to type-check, not to lower."""
    spec = TensorSpec((1, 2, 6, 6), "fp32")
    attrs = OPS[name].draw_attrs(random.Random(0), [spec])
    infer_node(Node.make(name, [0], **attrs), [spec])
    for key in attrs:
        with pytest.raises(GraphError):
            infer_node(Node.make(name, [0], **{k: v for k, v in attrs.items() if k != key}), [spec])
