"""Hypothesis strategies over numfuzz programs, for property tests of your own compiler.

from hypothesis import given
from numfuzz.strategies import programs

@given(programs(max_nodes=4))
def test_my_compiler(program):
    expected = program.fn(*program.inputs[0])
    ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from hypothesis import strategies as st

from numfuzz.program.generator import GenConfig, draw_samples, generate_from
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.values import Recipe, round_to


@st.composite
def gen_configs(draw: st.DrawFn, max_nodes: int = 6, max_dim: int = 6) -> GenConfig:
    top = draw(st.integers(1, max_nodes))
    return GenConfig(min_nodes=draw(st.integers(1, top)), max_nodes=top, max_rank=draw(st.integers(1, 4)), max_dim=draw(st.integers(1, max_dim)))


@st.composite
def graphs_with_recipes(draw: st.DrawFn, config: GenConfig | None = None) -> tuple[Graph, list[Recipe]]:
    rng = draw(st.randoms(use_true_random=False))
    return generate_from(rng, config or draw(gen_configs()))


def graphs(config: GenConfig | None = None) -> st.SearchStrategy[Graph]:
    """Well-typed random graphs; shrinks toward simpler choices."""
    return graphs_with_recipes(config).map(lambda pair: pair[0])


@dataclass
class Program:
    graph: Graph
    inputs: list[list[torch.Tensor]]  # per sample, per input, exactly rounded to the input dtypes

    @property
    def source(self) -> str:
        return lower(self.graph)

    @property
    def fn(self) -> Callable:
        return compile_source(self.source)

    @property
    def reference_fn(self) -> Callable:
        """Float64 version: call it on inputs upcast with `.double()`."""
        return compile_source(lower(self.graph, reference=True))


@st.composite
def programs(draw: st.DrawFn, max_nodes: int = 6, max_dim: int = 6, samples: int = 1) -> Program:
    """A graph plus `samples` sets of input tensors drawn from its recipes."""
    graph, recipes = draw(graphs_with_recipes(draw(gen_configs(max_nodes, max_dim))))
    seed = draw(st.integers(0, 2**32 - 1))
    drawn = draw_samples(graph, recipes, seed, samples)
    return Program(graph, [[round_to(v, s) for v, s in zip(sample, graph.inputs)] for sample in drawn])
