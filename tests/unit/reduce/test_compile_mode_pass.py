"""Shrinking how a case compiles, and its second size following every edit; synthetic predicates, no compiler."""

import json
import random

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numfuzz.corpus.case import Case
from numfuzz.corpus.make import make_case
from numfuzz.corpus.size_order import size_key
from numfuzz.program.generator import GenConfig
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.sizes import varying_dims
from numfuzz.program.values import encode
from numfuzz.reduce.schedule import SCHEDULE
from numfuzz.reduce.shrinker import Check, shrink
from numfuzz.run_spec import RunMix, RunSpec

GRAPH = Graph((TensorSpec((4, 3), "fp32"),), (Node.make("exp", [0]), Node.make("sum", [1], dim=1, keepdim=False)), (2,))


def _case(run: RunSpec, second: bool = True) -> Case:
    from numfuzz.corpus.case import SecondSize

    extra = SecondSize(((7, 3),), ((encode(torch.full((7, 3), 0.25)),), (encode(torch.full((7, 3), 0.5)),))) if second else None
    return Case.from_tensors(GRAPH, [[torch.full((4, 3), 0.75)]], run, second=extra)


def test_options_shrink_to_the_one_the_finding_needs():
    run = RunSpec("synthetic", compiler_options={"a": 1, "b": True, "c": "x", "d": 2.5})
    result = shrink(_case(run, second=False), lambda c: Check(c.run.options.get("c") == "x"), SCHEDULE)
    assert result.case.run.compiler_options == (("c", "x"),)


def test_sizes_go_static_unless_the_finding_needs_them_symbolic():
    dynamic = _case(RunSpec("synthetic", dynamic="dynamic"))
    assert shrink(dynamic, lambda c: Check(True), SCHEDULE).case.run.dynamic == "static"
    kept = shrink(dynamic, lambda c: Check(c.run.dynamic == "dynamic"), SCHEDULE).case
    assert kept.run.dynamic == "dynamic" and kept.second is None  # the finding is at the first size: its second size goes
    at_second = shrink(dynamic, lambda c: Check(c.second is not None), SCHEDULE).case
    assert at_second.second is not None and len(at_second.second.samples) == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(0, 2**31), st.sampled_from(["dynamic", "marked"]))
def test_every_shrunk_case_keeps_its_second_size_consistent_and_its_marked_dims_wide(seed, mode):
    """Whatever the passes cut, a candidate that keeps a second size is the same program there, with its varying dims >= 2."""
    share = {"dynamic": RunMix(dynamic=1.0), "marked": RunMix(marked=1.0)}[mode]
    case = make_case(seed, RunSpec("inductor", "cpu", samples=3), GenConfig(max_nodes=4, max_dim=5), share)
    if case.second is None:
        return
    seen = []

    def predicate(c: Case) -> Check:
        seen.append(c)
        return Check(c.second is not None and random.Random(c.content_hash()).random() < 0.7)

    result = shrink(case, predicate, SCHEDULE, max_cost=60)
    for c in seen + [result.case]:
        again = Case.from_json(json.loads(json.dumps(c.to_json())))  # loads, so shapes, bits and marks agree
        if again.second is None:
            continue
        dims = varying_dims(again.graph, again.second_graph())
        assert dims and all(again.graph.inputs[i].shape[d] >= 2 and again.second.shapes[i][d] >= 2 for i, d in dims)
        if again.run.dynamic == "marked":
            assert list(again.run.marked) == dims
    assert size_key(result.case) <= size_key(case)
