"""A case's input samples: float64 values drawn from each input's recipe (before rounding to its dtype), some repeated
across a seam, laid out as each input's layout asks."""

from __future__ import annotations

import numpy as np

from numfuzz.program.ir import Graph
from numfuzz.program.layout import conform
from numfuzz.program.seams import mirror_rows_and_tails
from numfuzz.program.values import Recipe, draw_values


def draw_samples(graph: Graph, recipes: list[Recipe], seed: int, count: int, mirror_every: int = 0) -> list[list[np.ndarray]]:
    """`count` float64 samples for every input, before rounding to the inputs' dtypes.

    With `mirror_every` k > 0, every k-th sample repeats values across a seam (`seams.mirror_rows_and_tails`).
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    samples = [[draw_values(r, s, rng) for r, s in zip(recipes, graph.inputs)] for _ in range(count)]
    if mirror_every:
        for i in range(mirror_every - 1, count, mirror_every):
            samples[i] = mirror_rows_and_tails(samples[i], rng)
    return [[conform(x, s.layout) for x, s in zip(sample, graph.inputs)] for sample in samples]
