"""Block templates: each builds a well-typed program at its drawn sizes that eager runs, and mutations keep programs well typed."""

from __future__ import annotations

import random

import pytest
import torch

from numfuzz.address import CaseAddress
from numfuzz.program.blocks import TEMPLATES, draw_block
from numfuzz.program.generator import _Builder, _renumber, generate
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.model_scale import LARGE_ELEMENTS
from numfuzz.program.ops import infer_specs
from numfuzz.program.space import GenConfig
from numfuzz.program.values import torch_dtype


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_each_template_builds_and_runs(name):
    built = 0
    for seed in range(12):
        b = _Builder(CaseAddress(seed).graph_streams(), GenConfig(), "cpu", LARGE_ELEMENTS)
        try:
            draw_block(b, random.Random(seed).choice(["bf16", "fp32"]), name)
        except Exception as exc:  # a drawn size that does not fit is a GraphError, nothing else
            assert type(exc).__name__ == "GraphError", exc
            continue
        graph = _renumber(b)
        specs = infer_specs(graph)
        assert all(s.numel <= LARGE_ELEMENTS for s in specs[len(graph.inputs) :])
        if sum(s.numel for s in graph.inputs) <= 2**18:  # run the small ones
            inputs = [torch.zeros(s.shape, dtype=torch.int64) if s.dtype == "i64" else torch.rand(s.shape).to(torch_dtype(s.dtype)) for s in graph.inputs]
            out = compile_source(lower(graph))(*inputs)
            assert out[0].dtype == torch_dtype(specs[graph.outputs[0]].dtype)
        built += 1
    assert built >= 8


def test_block_graphs_are_mutated_and_well_typed():
    ops = set()
    for seed in range(200):
        graph, recipes = generate(seed, GenConfig(blocks=1.0))
        infer_specs(graph)
        assert len(recipes) == len(graph.inputs)
        ops |= {n.op for n in graph.nodes}
    # swapped in for a template's own ops, and grown on
    assert {"gelu", "log_softmax", "rms_norm", "sdpa", "cross_entropy_index", "rsqrt"} <= ops and len(ops) > 40
