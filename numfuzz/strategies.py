"""Hypothesis strategies over numfuzz programs, for property tests of your own compiler.

    from hypothesis import given
    import numfuzz
    from numfuzz.strategies import programs

    @given(programs(max_nodes=4))
    def test_my_compiler(program):
        result = numfuzz.check(program, my_compile)
        assert not result.is_finding, result.explain()

Every choice the generator makes is one Hypothesis draw (`HypothesisRandom`), and so is every
input element of a small program (`HypothesisValues`): Hypothesis shrinks a failing program
structurally, toward fewer nodes, smaller shapes, the first ops and simple values.
"""

from __future__ import annotations

import math
import statistics
import textwrap
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from numfuzz.program.generator import GenConfig, generate_from
from numfuzz.program.ir import Graph
from numfuzz.program.layout import conform
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import own_ops
from numfuzz.program.values import Recipe, draw_values, round_to

# Hypothesis draws a bounded `st.integers` uniformly only over small ranges: over 2**16 values, to
# scale into a weighted choice, its skew to small values made `neg` (the first op) 53% of all nodes.
# So every draw here is an integer over at most _STEPS values (measured uniform), and a weighted
# choice is Walker's alias method: a uniform item, then a uniform step that keeps it or takes its alias.
_STEPS = 256
_CENTRED = st.floats(-0.5, 0.5)  # an input element's quantile about the median
_BELOW_ONE = math.nextafter(1.0, 0.0)
# Input elements a program draws one by one (one float each, two for logmag); past this a larger
# input takes a drawn seed instead, so that generation stays within Hypothesis's choice budget.
VALUE_CHOICES = 64


def _alias_table(weights: Sequence[float]) -> tuple[list[int], list[int]]:
    """Walker's alias method in integer steps: item i is kept when a step < keep[i], else alias[i] is taken."""
    n, total = len(weights), float(sum(weights))
    if total <= 0:
        raise ValueError("total of weights must be greater than zero")
    scaled = [w * n / total for w in weights]
    keep, alias = [_STEPS] * n, list(range(n))
    small = [i for i, w in enumerate(scaled) if w < 1.0]
    large = [i for i, w in enumerate(scaled) if w >= 1.0]
    while small and large:
        s, g = small.pop(), large[-1]
        keep[s], alias[s] = round(scaled[s] * _STEPS), g
        scaled[g] -= 1.0 - scaled[s]
        if scaled[g] < 1.0:
            small.append(large.pop())
    return keep, alias


class _Draws:
    """Uniform integer draws from Hypothesis: one choice each, shrinking to 0."""

    def __init__(self, draw: st.DrawFn):
        self._draw = draw

    def _index(self, n: int) -> int:
        """Uniform in [0, n). It draws even for n == 1, so that a shrink elsewhere keeps later choices aligned."""
        return self._draw(st.integers(0, max(n, 1) - 1))


class HypothesisRandom(_Draws):
    """The `random.Random` methods `generate_from` calls, each a Hypothesis draw that shrinks to the simple case.

    Integers shrink toward their lower bound, choices toward the first item (the first op, the
    first value, the first dtype), permutations toward the identity, and `random()` toward just
    under 1, so that the generator's `random() < p` branches (a bias, a mixed dtype, a negative
    dim, keepdim) are not taken.
    """

    def random(self) -> float:
        return (_STEPS - 1 - self._index(_STEPS)) / _STEPS

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self._index(_STEPS + 1) / _STEPS

    def randint(self, a: int, b: int) -> int:
        if b < a:
            raise ValueError(f"empty range for randint({a}, {b})")
        return a + self._index(b - a + 1)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        count = len(range(start, stop, step))
        if count == 0:
            raise ValueError(f"empty range for randrange({start}, {stop}, {step})")
        return start + step * self._index(count)

    def choice(self, seq: Sequence[Any]) -> Any:
        if not len(seq):
            raise IndexError("cannot choose from an empty sequence")
        return seq[self._index(len(seq))]

    def choices(self, population: Sequence[Any], weights: Sequence[float] | None = None, *, cum_weights: Sequence[float] | None = None, k: int = 1) -> list:
        items = list(population)
        if weights is None and cum_weights is None:
            return [self.choice(items) for _ in range(k)]
        if weights is None:
            weights = [b - a for a, b in zip([0.0, *cum_weights[:-1]], cum_weights)]
        keep, alias = _alias_table(weights)
        picked = []
        for _ in range(k):
            i = self._index(len(items))
            picked.append(items[i] if self._index(_STEPS) < keep[i] else items[alias[i]])
        return picked

    def sample(self, population: Sequence[Any], k: int) -> list:
        pool = list(population)
        if not 0 <= k <= len(pool):
            raise ValueError("sample larger than population or is negative")
        return [pool.pop(self._index(len(pool))) for _ in range(k)]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        pool = list(x)
        x[:] = [pool.pop(self._index(len(pool))) for _ in range(len(pool))]


class HypothesisValues(_Draws):
    """The numpy Generator methods `values.draw_values` calls, each element a Hypothesis draw of its quantile.

    The quantile shrinks toward the median, so elements shrink toward 0 (normal, uniform, tiny,
    large) or 1 (logmag): a shrunk program keeps only the values its failure needs.
    """

    _normal = statistics.NormalDist()

    def _quantiles(self, size: int | None) -> np.ndarray:
        def one() -> float:
            return min(max(0.5 + self._draw(_CENTRED), 2.0**-53), _BELOW_ONE)

        return np.array([one() for _ in range(1 if size is None else size)])

    def _shaped(self, values: np.ndarray, size: int | None) -> np.ndarray | float:
        return float(values[0]) if size is None else values

    def random(self, size: int | None = None) -> np.ndarray | float:
        return self._shaped(self._quantiles(size), size)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: int | None = None) -> np.ndarray | float:
        return self._shaped(low + (high - low) * self._quantiles(size), size)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: int | None = None) -> np.ndarray | float:
        z = np.array([self._normal.inv_cdf(q) for q in self._quantiles(size)])
        return self._shaped(loc + scale * z, size)

    def choice(self, seq: Sequence[Any]) -> Any:
        return list(seq)[self._index(len(seq))]

    def integers(self, low: int, high: int | None = None) -> int:
        if high is None:
            low, high = 0, low
        return low + self._index(high - low)


@st.composite
def gen_configs(draw: st.DrawFn, max_nodes: int = 6, max_dim: int = 6) -> GenConfig:
    """Small program spaces over the hand-written ops, whose programs eager always runs (an op database's may ask for
    values no recipe draws: a positive-definite matrix, lengths that sum to a size)."""
    u = HypothesisRandom(draw)
    top = u.randint(1, max_nodes)
    sizes = {"min_nodes": u.randint(1, top), "max_nodes": top, "max_rank": u.randint(1, 4), "max_dim": u.randint(1, max_dim)}
    return GenConfig(**sizes, ops=tuple(own_ops()))


@st.composite
def graphs_with_recipes(draw: st.DrawFn, config: GenConfig | None = None, widths: str = "cpu") -> tuple[Graph, list[Recipe]]:
    return generate_from(HypothesisRandom(draw), config or draw(gen_configs()), widths)


def graphs(config: GenConfig | None = None) -> st.SearchStrategy[Graph]:
    """Well-typed random graphs; shrinks toward fewer nodes, smaller shapes and the first ops."""
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

    def describe(self, max_values: int = 8) -> str:
        """The program's source and its inputs (the values of those up to `max_values` elements)."""
        lines = [self.source.rstrip(), f"# {len(self.inputs)} sample(s):"]
        for s, sample in enumerate(self.inputs):
            for i, (spec, t) in enumerate(zip(self.graph.inputs, sample)):
                values = f" = {t.flatten().tolist()}" if t.numel() <= max_values else ""
                lines.append(f"#   sample {s} x{i}: {spec.dtype}{list(spec.shape)}{values}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "Program(\n" + textwrap.indent(self.describe(), "    ") + "\n)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # what Hypothesis prints for a falsifying example
        printer.text(repr(self))


def draw_inputs(draw: st.DrawFn, graph: Graph, recipes: list[Recipe], samples: int) -> list[list[torch.Tensor]]:
    """`samples` sets of inputs from the recipes: elements drawn one by one while the budget lasts, then by a drawn seed."""
    budget = VALUE_CHOICES
    drawn = []
    for _ in range(samples):
        sample = []
        for recipe, spec in zip(recipes, graph.inputs):
            if spec.numel <= budget:
                budget -= spec.numel
                rng: Any = HypothesisValues(draw)
            else:
                rng = np.random.Generator(np.random.PCG64(draw(st.integers(0, 2**32 - 1))))
            sample.append(round_to(conform(draw_values(recipe, spec, rng), spec.layout), spec))  # an expanded input repeats its first slice
        drawn.append(sample)
    return drawn


@st.composite
def programs(draw: st.DrawFn, max_nodes: int = 6, max_dim: int = 6, samples: int = 1, ops: Sequence[str] | None = None) -> Program:
    """A graph plus `samples` sets of input tensors drawn from its recipes; `ops` names the ops drawn (default: the
    hand-written table, `program.ops.own_ops`)."""
    config = draw(gen_configs(max_nodes, max_dim))
    if ops is not None:
        config = replace(config, ops=tuple(ops))
    graph, recipes = draw(graphs_with_recipes(config))
    return Program(graph, draw_inputs(draw, graph, recipes, samples))
