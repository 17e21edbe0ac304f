"""THE size order, which decides what counts as smaller. Defined here and nowhere else.

`size_key` is lexicographic over, in this order:

 1. nodes            -- ops in the graph
 2. outputs
 3. inputs
 4. dtypes           -- distinct dtypes over every value of the graph
 5. scalars          -- input elements over all samples (samples x sum of input numel)
 6. samples
 7. rank             -- sum of the inputs' ranks
 8. layouts          -- inputs laid out as a strided view (not plain)
 9. passed           -- scalars passed as arguments, and their second values (`program.scalars`)
10. autocast         -- nodes in a torch.autocast region (`program.autocast`)
11. distinct values  -- distinct input values (float64 bit patterns) over all samples
12. value cost       -- sum over input elements of `value_cost`: 0 is simplest, then +-1,
                        then other powers of two, then values with more significant bits
                        (then more bits set, then an exponent further from 0, then negative)
13. attributes     -- `value_cost` summed over the nodes' float attributes that may take any scalar (`OpSpec.scalars`:
                        a margin, a slope, an eps), with their second values: 1.0 is simpler than 1.7
14. options          -- compiler options drawn for the case (the default configuration: 0), and 1 more
                        where the case runs on several intra-op threads (`RunSpec.threads`)
15. dynamic          -- 0 static sizes, 1 automatic (torch.compile's default), 2 marked dims, 3 every size symbolic
16. marked           -- dims marked dynamic
17. second           -- input elements at the second size, over its samples

The last four come after the program's: shrinking the program never trades against them, and a
case that needs no symbolic size or option is smaller without it.

Every component is a natural number, so the order is well founded: with or without a budget,
shrinking terminates.
"""

from __future__ import annotations

import math

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.program.autocast import region
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs, lookup
from numfuzz.program.scalars import passed

SizeKey = tuple[int, ...]


SIZE_FIELDS = (
    "nodes", "outputs", "inputs", "dtypes", "scalars", "samples", "rank", "layouts", "passed", "autocast", "distinct", "value_cost",
    "attributes", "options", "dynamic", "marked", "second",
)  # fmt: skip
DYNAMIC_ORDER = {"static": 0, "automatic": 1, "marked": 2, "dynamic": 3}


# Weights so that each criterion outweighs all later ones: |exponent| <= 1075, set bits <= 53.
_EXP_WEIGHT, _SET_BIT_WEIGHT, _SIG_WEIGHT = 2, 4096, 4096 * 64


NONFINITE_COST = 1 << 24  # above any finite value's cost


def value_cost(values: np.ndarray) -> np.ndarray:
    """Per element: 0 for +0; else by significant bits, then set bits, then |exponent|, then sign."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    cost = np.zeros(v.shape, dtype=np.int64)
    finite = np.isfinite(v)
    nonzero = finite & (v != 0)
    mant, exp = np.frexp(np.abs(v[nonzero]))
    m = (mant * 2.0**53).astype(np.int64)
    low_bit = m & -m
    sig = 53 - np.round(np.log2(low_bit.astype(np.float64))).astype(np.int64)
    set_bits = np.unpackbits(m.view(np.uint8)).reshape(-1, 64).sum(axis=1).astype(np.int64)
    cost[nonzero] = sig * _SIG_WEIGHT + set_bits * _SET_BIT_WEIGHT + _EXP_WEIGHT * np.abs(exp - 1)
    cost[~finite] = NONFINITE_COST
    cost += np.signbit(v).astype(np.int64)
    return cost


def input_values(case: Case) -> np.ndarray:
    """Every input element of every sample, as float64, flat."""
    parts = [t.to("cpu").double().reshape(-1).numpy() for sample in case.tensors() for t in sample]
    return np.concatenate(parts) if parts else np.zeros(0)


def scalar_attributes(graph: Graph) -> list[float]:
    """The float attributes a node may take from the scalar recipe (its op's `scalars`), with their second values."""
    found = []
    for node in graph.nodes:
        names = {name for name, _ in lookup(node.op).scalars}
        found += [float(v) for k, v in node.attrs if k in names and isinstance(v, (int, float)) and not isinstance(v, bool)]
        found += [float(second) for name, second in passed(node) if second is not None]
    return found


def size_key(case: Case) -> SizeKey:
    """THE size order; see the module docstring. Defined here and nowhere else."""
    g = case.graph
    values = input_values(case)
    return (
        len(g.nodes),
        len(g.outputs),
        len(g.inputs),
        len({s.dtype for s in infer_specs(g)}),
        values.size,
        len(case.samples),
        sum(len(s.shape) for s in g.inputs),
        sum(s.layout is not None for s in g.inputs),
        sum(1 + (second is not None) for node in g.nodes for _, second in passed(node)),
        sum(region(node) is not None for node in g.nodes),
        len(np.unique(values.view(np.int64))),
        int(value_cost(values).sum()),
        int(value_cost(np.array(scalar_attributes(g), dtype=np.float64)).sum()),
        len(case.run.compiler_options) + (case.run.threads > 1),
        DYNAMIC_ORDER[case.run.dynamic],
        len(case.run.marked),
        sum(math.prod(shape) for shape in case.second.shapes) * len(case.second.samples) if case.second is not None else 0,
    )


def smaller(candidate: Case | None, than: Case) -> Case | None:
    """The candidate when it is strictly smaller than `than`, else None: passes filter with this."""
    if candidate is None or candidate.content_hash() == than.content_hash():
        return None
    return candidate if size_key(candidate) < size_key(than) else None
