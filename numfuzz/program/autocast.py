"""Autocast regions: nodes that run under `torch.autocast`, as a model's forward does, and what that does to dtypes.

A node in a region carries the attribute `autocast` (the region's dtype, "bf16" or "fp16"); the
lowered program wraps it in `with torch.autocast(device, dtype=...)`, so eager, every target and
the repro run the same region. Autocast casts an op's float arguments by the op's policy: to the
region's dtype for the ops it computes in low precision (matmuls, linear, attention), to fp32 for
the ops it keeps in fp32 (losses, `prod`), and leaves every other op alone. The float64 reference
follows those casts as it follows explicit ones: it rounds a low-precision op's arguments to the
region's dtype (`program.lowering`). A region is an attribute of each node, so cones, cut
programs and the minimiser keep it; the minimiser drops it node by node (`reduce.passes.autocast`).

Each op's policy is its `OpSpec.autocast` (where a node's attributes decide it, as pad's mode does, `OpSpec.autocast_for`),
CPU autocast's (measured on torch 2.9.1; a test checks them against the installed torch);
a region's dtypes are checked against eager's at run time, so a torch whose lists moved makes
the case invalid instead of judging it against the wrong reference. No torch here.
"""

from __future__ import annotations

import random
from typing import Callable

from numfuzz.program.dtypes import is_integer
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec

ATTR = "autocast"
REGION_DTYPES = ("bf16", "fp16")
# An op's autocast policy (`OpSpec.autocast`): on CPU autocast's lower_precision_fp list, every float argument
# cast to the region's dtype; on its fp32 list, cast to fp32; "" (every other op) left alone.
LOWER, FP32 = "lower", "fp32"
POLICIES = (LOWER, FP32, "")


def region(node: Node) -> str | None:
    """The autocast dtype the node runs under, or None outside a region."""
    value = node.attr(ATTR)
    if value is not None and value not in REGION_DTYPES:
        raise GraphError(f"{node.op}: autocast is one of {', '.join(REGION_DTYPES)}, not {value!r}")
    return value


def cast_dtype(node: Node, policy: str) -> str | None:
    """The dtype autocast casts this node's float arguments to, under its op's `policy` (None: it leaves them alone)."""
    dtype = region(node)
    if dtype is None:
        return None
    return dtype if policy == LOWER else "fp32" if policy == FP32 else None


def autocast_args(node: Node, args: list[TensorSpec], policy: str) -> list[TensorSpec]:
    """The arguments' specs as the op sees them inside its region (integers and fp64 untouched, as autocast does)."""
    dtype = cast_dtype(node, policy)
    if dtype is None:
        return args
    return [s if is_integer(s.dtype) or s.dtype == "fp64" else TensorSpec(s.shape, dtype, s.layout) for s in args]


def rounded_args(node: Node, specs: list[TensorSpec], policy: str) -> list[tuple[int, str, str]]:
    """(argument position, region dtype, the argument's own dtype) for each argument the reference must round:
    a low-precision op's float arguments not already in the region's dtype."""
    dtype = region(node) if policy == LOWER else None
    if dtype is None:
        return []
    own = [specs[a].dtype for a in node.args]
    return [(i, dtype, d) for i, d in enumerate(own) if not is_integer(d) and d not in (dtype, "fp64")]


def has_regions(graph: Graph) -> bool:
    return any(region(n) is not None for n in graph.nodes)


def with_region(graph: Graph, positions: range | list[int], dtype: str) -> Graph:
    """`graph` with the nodes at `positions` in an autocast region of `dtype`."""
    chosen = set(positions)
    nodes = tuple(Node.make(n.op, n.args, **{**n.attr_dict, ATTR: dtype}) if j in chosen else n for j, n in enumerate(graph.nodes))
    return Graph(graph.inputs, nodes, graph.outputs)


def without_region(graph: Graph, positions: list[int] | None = None) -> Graph:
    """`graph` with the nodes at `positions` (all where None) out of their autocast region."""
    chosen = set(range(len(graph.nodes)) if positions is None else positions)
    nodes = tuple(
        Node.make(n.op, n.args, **{k: v for k, v in n.attr_dict.items() if k != ATTR}) if j in chosen and region(n) else n for j, n in enumerate(graph.nodes)
    )
    return Graph(graph.inputs, nodes, graph.outputs)


def region_label(graph: Graph) -> str:
    """A region's words for a case's compile label ("autocast=bf16"), or "" with none."""
    dtypes = sorted({d for n in graph.nodes if (d := region(n)) is not None})
    return f"autocast={'+'.join(dtypes)}" if dtypes else ""


def draw_region(
    rng: random.Random,
    graph: Graph,
    check: Callable[[Graph], object],
    policy: Callable[[Node], str],
    fp16_share: float = 0.25,
    keep_out: Callable[[Node], bool] = lambda node: False,
) -> Graph:
    """`graph` with an autocast region: the whole program half the time, else a span of its nodes around an op
    autocast casts (a graph with none gets no region). bf16 mostly; fp16 (which CPU autocast takes too) a `fp16_share` of regions.
    `check` type-checks a graph and `policy` gives a node's autocast policy (the op table's `infer_specs` and specs, which
    use this module: passed in, not imported); a node `keep_out` names stays outside the region (an integer op, whose
    float result autocast may cast in ways no policy states)."""
    n = len(graph.nodes)
    dtype = "fp16" if rng.random() < fp16_share else "bf16"
    cast = [j for j, node in enumerate(graph.nodes) if policy(node)]
    if not cast:  # a region where autocast casts nothing runs as without one
        return graph
    if rng.random() < 0.5:
        positions = range(n)
    else:
        middle = rng.choice(cast)
        positions = range(rng.randint(0, middle), rng.randint(middle, n - 1) + 1)
    drawn = with_region(graph, [j for j in positions if not keep_out(graph.nodes[j])], dtype)
    try:
        check(drawn)
    except GraphError:  # a dtype the region changed does not fit a later op: no region
        return graph
    return drawn
