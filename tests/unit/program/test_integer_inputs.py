"""Integer inputs (class targets, indices): typed as i64, drawn in range, stored exactly, checked where a case loads."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from numfuzz.address import case_seed
from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.make import make_case
from numfuzz.program.generator import GenConfig
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.layout import Layout
from numfuzz.program.ops import index_ranges, infer_specs
from numfuzz.program.valid_inputs import input_problem, into_range
from numfuzz.program.values import decode, encode
from numfuzz.run_spec import RunSpec

INDEX_OPS = ("nll_loss", "cross_entropy_index", "gather", "index_select", "embedding")


def nll_graph(ignore_index: int = -100) -> Graph:
    inputs = (TensorSpec((3, 5), "fp32"), TensorSpec((3,), "i64"))
    return Graph(inputs, (Node.make("nll_loss", [0, 1], reduction="mean", ignore_index=ignore_index),), (2,))


def test_integer_bits_round_trip_exactly():
    values = torch.tensor([0, 4, 2**53 + 1, -100], dtype=torch.int64)
    spec = TensorSpec((4,), "i64")
    assert torch.equal(decode(encode(values), spec), values)


@pytest.mark.parametrize("op", INDEX_OPS)
def test_generated_indices_lie_in_range_and_load_back(op):
    config = GenConfig(ops=(op, "exp", "add"), layouts=0.5)
    seen = 0
    for i in range(40):
        case = make_case(case_seed(5, i), RunSpec("eager", samples=3), config)
        ranges = index_ranges(case.graph)
        for k, (bound, extra) in ranges.items():
            assert case.graph.inputs[k].dtype == "i64" and case.graph.inputs[k].layout is None and case.recipes[k].bound == bound
            for sample in case.tensors():
                x = sample[k]
                assert x.dtype == torch.int64 and bool(((x >= 0) & (x < bound) | torch.isin(x, torch.tensor(sorted(extra), dtype=torch.int64))).all())
            seen += 1
        assert Case.from_json(json.loads(json.dumps(case.to_json()))).content_hash() == case.content_hash()
    assert seen >= 5, op


def test_an_index_out_of_range_is_refused_when_a_case_loads():
    graph = nll_graph()
    good = Case.from_tensors(graph, [[torch.zeros(3, 5), torch.tensor([4, 0, 2])]], "eager")
    assert Case.from_json(good.to_json()).tensors()[0][1].tolist() == [4, 0, 2]
    bad = Case.from_tensors(graph, [[torch.zeros(3, 5), torch.tensor([5, 0, 2])]], "eager").to_json()
    with pytest.raises(CaseError, match=r"sample 0: input x1 holds index 5, outside \[0, 5\)"):
        Case.from_json(bad)
    ignored = Case.from_tensors(nll_graph(ignore_index=-100), [[torch.zeros(3, 5), torch.tensor([-100, 0, 2])]], "eager")
    assert Case.from_json(ignored.to_json())  # the ignored class is a valid target


def test_integers_go_only_where_an_op_takes_indices():
    floats = (TensorSpec((3, 5), "fp32"), TensorSpec((3,), "fp32"))
    with pytest.raises(GraphError, match="takes i64 indices"):
        infer_specs(Graph(floats, (Node.make("nll_loss", [0, 1], reduction="sum", ignore_index=-100),), (2,)))
    with pytest.raises(GraphError, match="takes"):
        infer_specs(Graph((TensorSpec((3,), "i64"),), (Node.make("exp", [0]),), (1,)))
    with pytest.raises(GraphError, match="not an output"):
        infer_specs(Graph((TensorSpec((3,), "i64"),), (), (0,)))
    with pytest.raises(GraphError, match="contiguous"):
        TensorSpec((3, 2), "i64", Layout.make(2, perm=[1, 0]))
    assert index_ranges(nll_graph(ignore_index=1)) == {1: (5, frozenset({1}))}


def test_indices_are_taken_into_range_when_their_dim_shrinks():
    graph = Graph((TensorSpec((3, 2), "fp32"), TensorSpec((3,), "i64")), nll_graph().nodes, (2,))  # 2 classes now
    sample = [torch.zeros(3, 2), torch.tensor([4, 1, 3])]
    assert input_problem(graph, sample) == "input x1 holds index 4, outside [0, 2) of the ops that read it"
    fixed = into_range(graph, sample)
    assert fixed[1].tolist() == [0, 1, 1] and input_problem(graph, fixed) is None
    kept = into_range(
        Graph((TensorSpec((3, 2), "fp32"), TensorSpec((3,), "i64")), nll_graph(ignore_index=-100).nodes, (2,)), [torch.zeros(3, 2), torch.tensor([-100, 1, 0])]
    )
    assert kept[1].tolist() == [-100, 1, 0]  # the ignored class stays


def test_integer_values_never_reach_the_oracle():
    """Outputs are floats (an integer input is never one); with gradients, an integer input's place holds an empty gradient."""
    from numfuzz.judge.compiled import NO_GRADIENT_DTYPE, CompiledProgram
    from numfuzz.targets.eager import Eager

    program = CompiledProgram(nll_graph(), Eager(), "cpu", grad=True)
    assert program.judged_dtypes == ["fp32", "fp32", NO_GRADIENT_DTYPE]
    x, t, up = torch.randn(3, 5), torch.tensor([1, 0, 4]), [torch.tensor(1.0)]
    program.prepare()
    for got in (program.eager_grads([x, t], up), program.run_grads([x, t], up), program.reference_grads([x, t], up)):
        assert got[2].numel() == 0 and got[1].shape == (3, 5)
        assert np.allclose(got[1].double().numpy()[[0, 1, 2], [1, 0, 4]], -1 / 3)


def test_every_drawn_second_size_keeps_its_indices_in_range_and_loads():
    """An index recipe's bound is the first size's; at a smaller second size the values are taken into range, so the case loads."""
    from numfuzz.corpus.case import Case
    from numfuzz.corpus.make import make_case
    from numfuzz.program.space import GenConfig
    from numfuzz.run_spec import RunMix, RunSpec

    with_indices = 0
    for seed in range(200):
        case = make_case(
            seed, RunSpec("inductor", "cpu", samples=4), GenConfig(ops=["nll_loss", "gather", "embedding", "index_select", "exp"]), RunMix(dynamic=1.0)
        )
        if case.second is not None and any(spec.dtype == "i64" for spec in case.graph.inputs):
            with_indices += 1
            Case.from_json(case.to_json())  # raises CaseError for an index out of range at the second size
    assert with_indices >= 10


def test_a_few_signed_integer_inputs_hold_their_dtypes_lowest_value():
    """int32 -2**31 // -1 wraps in eager (torch 2.15) and traps compiled (pytorch#184406): a few signed inputs draw
    the lowest value among their edges (eager's own trap on older torch is no finding: `targets.boundary`)."""
    from numfuzz.program.values import LOWEST, LOWEST_SHARE, SIGNED, torch_dtype

    recipes = []
    for seed in range(200):
        case = make_case(seed, RunSpec("eager", samples=8), GenConfig.default(integers=1.0))
        for k, (spec, recipe) in enumerate(zip(case.graph.inputs, case.recipes)):
            if spec.dtype in SIGNED and recipe.kind == "integer":
                values = np.concatenate([sample[k].numpy().ravel() for sample in case.tensors()])
                recipes.append((recipe.domain, spec.dtype, bool((values == torch.iinfo(torch_dtype(spec.dtype)).min).any())))
    lowest = [r for r in recipes if r[0] == LOWEST]
    assert 0 < len(lowest) < 4 * LOWEST_SHARE * len(recipes), (len(lowest), len(recipes))
    assert sum(held for _, _, held in lowest) >= len(lowest) // 2  # eight samples: most hold it somewhere
    assert not any(held for domain, _, held in recipes if domain != LOWEST)
