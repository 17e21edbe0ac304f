"""Ops along a dim over 0-d values: torch reads a 0-d value's dim 0 or -1 as a dim of one element (`torch.sum(x0d,
dim=0)` is 0-d, keepdim or not). The table's shape rules give eager's shapes, the generator draws such ops by default,
and the float64 references (torch's and the finer one) take them."""

import random
import warnings

import numpy as np
import pytest
import torch

from numfuzz.program.families import family_of
from numfuzz.program.fine import fine_outputs
from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import OPS, infer_specs
from numfuzz.program.space import GenConfig
from numfuzz.program.values import torch_dtype

ALONG_A_DIM = sorted(name for name, op in OPS.items() if family_of(op).zero_d)
SCALAR = TensorSpec((), "fp32")


def _attrs_drawn(name: str, seed: int) -> dict:
    """The op's attributes as its own drawer draws them for a 0-d argument."""
    op = OPS[name]
    return op.draw_attrs(random.Random(seed), [SCALAR]) if op.draw_attrs else {}


def _run(graph: Graph, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a variance of one element
        eager = compile_source(lower(graph))(x)[0]
        reference = compile_source(lower(graph, reference=True))(x.double())[0]
    return eager, reference


def test_the_ops_along_a_dim_that_take_a_0d_value_are_the_reductions_scans_and_softmaxes():
    expected = {"sum", "mean", "prod", "amax", "amin", "var", "std", "var_mean", "vector_norm", "logsumexp", "softmax", "log_softmax"}
    expected |= {"cumsum", "cumprod", "logcumsumexp", "argmax", "argmin", "max_dim"}
    assert expected <= set(ALONG_A_DIM)
    assert not {"cat", "layer_norm", "rms_norm", "group_norm", "gather", "chunk"} & set(ALONG_A_DIM)


@pytest.mark.parametrize("name", ALONG_A_DIM)
def test_an_op_along_a_dim_of_a_0d_value_gives_eagers_shape(name):
    seen = set()
    for seed in range(12):
        attrs = _attrs_drawn(name, seed)
        assert attrs["dim"] in (0, -1)
        seen.add((attrs["dim"], attrs.get("keepdim")))
        graph = Graph((SCALAR,), (Node.make(name, [0], **attrs),), (1,))
        spec = infer_specs(graph)[1]
        eager, reference = _run(graph, torch.tensor(1.25))
        assert spec.shape == () and eager.shape == spec.shape and reference.shape == spec.shape, attrs
        assert eager.dtype == torch_dtype(spec.dtype) and reference.dtype == torch.float64
    assert {dim for dim, _ in seen} == {0, -1}


@pytest.mark.parametrize("name", ["sum", "cumsum", "softmax", "argmax"])
def test_a_dim_past_0_or_minus_1_is_refused_as_torch_refuses_it(name):
    attrs = {**_attrs_drawn(name, 0), "dim": 1}
    graph = Graph((SCALAR,), (Node.make(name, [0], **attrs),), (1,))
    with pytest.raises(GraphError, match="out of range"):
        infer_specs(graph)
    with pytest.raises(IndexError, match="out of range"):
        compile_source(lower(graph))(torch.tensor(1.25))


def test_count_ge_over_a_0d_pair_gives_eagers_shape():
    graph = Graph((SCALAR, SCALAR), (Node.make("count_ge", [0, 1], dim=-1, keepdim=True),), (2,))
    assert infer_specs(graph)[2].shape == ()
    assert compile_source(lower(graph))(torch.tensor(2.0), torch.tensor(1.0))[0].shape == ()


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin"])
def test_the_finer_reference_reduces_a_0d_value_to_itself(name):
    graph = Graph((TensorSpec((), "fp64"),), (Node.make(name, [0], dim=-1, keepdim=True),), (1,))
    [fine] = fine_outputs(lower(graph, reference=True), [np.array(0.1)], [])
    assert fine.shape == () and float(fine) == 0.1


def test_the_generator_draws_0d_values_along_a_dim_by_default():
    """Most such ops take the share's 0-d value (`zero_dim_ops`); a 0-d partner's ops give a few more."""

    def share_of_graphs(config: GenConfig) -> float:
        hits = 0
        for seed in range(300):
            graph, _ = generate(seed, config)
            specs = infer_specs(graph)
            hits += any(family_of(OPS[n.op]).zero_d and not specs[n.args[0]].shape for n in graph.nodes)
        return hits / 300

    by_default, without = share_of_graphs(GenConfig.default()), share_of_graphs(GenConfig.default(zero_dim_ops=0.0))
    assert 0.03 <= by_default <= 0.1 and without < by_default
