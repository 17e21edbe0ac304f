"""Model-sized values: rows of 1024 to 32768 elements, as a hidden size or a vocabulary is, within a budget per value.

Compilers pick other code for big values: Inductor's CPU code splits a long reduction over threads
with per-thread partial accumulators and tiles and fuses outer loops; Triton switches from
persistent to looped reductions past about 1024 elements a row. A share of graphs
(`GenConfig.large`) starts from such a value. Their cases draw fewer samples, so that a case holds
at most `SAMPLE_ELEMENTS` input elements (its file, the float64 reference and every probe scale
with it), and no input search. Torch-free.
"""

from __future__ import annotations

import math
import random

from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs

SMALL_ELEMENTS = 4096  # any value of an ordinary graph
# Any value of a large graph: 2^21 elements is 16 MiB in float64, so a graph of eight such values,
# its reference and eager's fit a worker's 2 GiB with room to spare.
LARGE_ELEMENTS = 2**21
ROWS = (1024, 2048, 4096, 8192, 16384, 32768)
TAILS = (0, 0, 1, -1, 7, 33)  # past a vector width or a block: the loops' remainders run too
SAMPLE_ELEMENTS = 2**22  # input elements over all of a large case's samples
# Elements over every value (inputs and nodes) of every sample, at most: the judge holds each several
# times (eager's, the target's, the float64 reference's, the probe exposing them all); scripts/judge_memory
# measures its bytes per element on the largest cases drawn.
JUDGE_ELEMENTS = 2**25
MIN_SAMPLES = 2  # the determinism check reruns one


def large_shape(rng: random.Random, budget: int = LARGE_ELEMENTS) -> tuple[int, ...]:
    """A model-sized shape: its last dim a row of 1024 to 32768 (give or take a tail), leading dims within `budget`."""
    row = rng.choice(ROWS) + rng.choice(TAILS)
    room = max(budget // row, 1)
    lead = max(min(rng.choice((1, 2, 3, 8, 17, 64, 128, 512)), room), SMALL_ELEMENTS // row + 1)  # past an ordinary value
    if lead >= 4 and rng.random() < 0.3:  # a batch and a sequence
        batch = rng.choice([d for d in (2, 3, 4) if lead // d >= 1])
        return (batch, lead // batch, row)
    return (lead, row)


def is_large(graph: Graph) -> bool:
    """Whether any input is past an ordinary graph's limit (a large graph's first input always is)."""
    return any(spec.numel > SMALL_ELEMENTS for spec in graph.inputs)


def samples_for(graph: Graph, wanted: int) -> int:
    """How many samples a case of `graph` draws: `wanted`, fewer for a large graph, within SAMPLE_ELEMENTS of input
    and JUDGE_ELEMENTS of every value (at least MIN_SAMPLES)."""
    if not is_large(graph):
        return wanted
    per_sample = sum(math.prod(spec.shape) for spec in graph.inputs) or 1
    return max(MIN_SAMPLES, min(wanted, SAMPLE_ELEMENTS // per_sample, JUDGE_ELEMENTS // value_elements(graph)))


def value_elements(graph: Graph) -> int:
    """Elements over every value of one sample: the inputs and every node's result."""
    return sum(spec.numel for spec in infer_specs(graph)) or 1


def case_elements(graph: Graph, samples: int) -> int:
    """Elements over every value of every sample: what the judge's memory grows with."""
    return samples * value_elements(graph)
