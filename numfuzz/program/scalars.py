"""Python scalars in a program: the values drawn for them, which are passed at call time, and the lines they draw.

Torch-free. A node's float attribute (a clamp bound, a scale, a margin) is a Python number. Drawn
values come from a recipe, as inputs do: values the tensor dtype holds exactly and values it
cannot (0.1 and 1.7 in bf16), tiny and huge ones, the dtype's limits and past them, and -0.0.
An op says which values are legal for each of its scalars (`LEGAL`).

A scalar may be *passed*: the lowered function takes it as an argument (`t3 = clamp(t2, min=min_3)`,
`def fn(x0, min_3=-1.7)`) and every call hands it over, so a compiler sees a Python number at call
time and not a literal. A node lists its passed attributes in its `passed` attribute, each with the
value of a second call (or None): a compiled program is called again with those, as at a second
size, which is how a stale specialised scalar shows. Storing both in the node means every graph
edit (cones, cut programs, the minimiser) keeps them without knowing of them.
"""

from __future__ import annotations

import math
import random
from typing import Any

from numfuzz.program.ir import Graph, Node

PASSED = "passed"  # the node attribute: ((name, second value or None), ...)
# What values a scalar may take: any finite number; |x| >= 0 (shrink widths); > 0 (deltas); small
# magnitudes (exponents and slopes, where a huge value only overflows everything); small magnitudes but
# not 0 (celu's alpha divides); in (0, 1] (a norm's eps, label smoothing).
LEGAL = ("any", "nonneg", "positive", "moderate", "nonzero", "unit_interval")
# Exactly representable in every float dtype numfuzz draws.
EXACT = (0.5, 1.0, 2.0, 3.0, 0.25, 0.75, 1.5, 6.0, 0.125)
# Not representable in bf16 or fp16 (nor, but 0.5-multiples aside, in fp32): eager rounds them to the
# tensor's dtype before comparing, a compiler may keep them in fp32 (pytorch#185517).
INEXACT = (0.1, 0.7, 1.7, 0.3, 2.2, 1.0 / 3.0, 0.01, 5.9)
TINY = (1e-3, 1e-5, 2.0**-24, 6e-8, 1e-30, 1e-40)
# Near and past the dtypes' limits: fp16's max, past it, bf16/fp32's max, past fp32's (pytorch#195675).
HUGE = (1e4, 65504.0, 65520.0, 1e5, 3.3895313892515355e38, 1e39)
# Python ints too: Dynamo treats an int argument as it treats a size (specialised, then symbolic once it changes).
INTEGERS = (1, 2, 3, 6, 0)
KINDS = (
    ("exact", EXACT, 0.3), ("inexact", INEXACT, 0.3), ("tiny", TINY, 0.1), ("huge", HUGE, 0.1),
    ("zero", (0.0, -0.0), 0.08), ("integer", INTEGERS, 0.05),
)  # fmt: skip
MODERATE = 8.0


def draw_value(rng: random.Random, legal: str = "any") -> float | int:
    """A scalar from the recipe, made legal; the rest of the weight, a float in (-4, 4) using every bit of float64."""
    if legal not in LEGAL:
        raise ValueError(f"unknown scalar legality {legal!r}")
    pick = rng.random()
    value = 0.0
    for _kind, values, weight in KINDS:
        if pick < weight:
            value = rng.choice(values)
            break
        pick -= weight
    else:
        value = rng.uniform(-4.0, 4.0)
    if legal != "nonneg" or value != 0.0:
        value = value if rng.random() < 0.5 else -value
    return legalise(value, legal)


def legalise(value: float | int, legal: str) -> float | int:
    """`value` moved into what `legal` allows, keeping its kind where it can."""
    if legal == "nonneg":
        return abs(value)
    if legal == "positive":
        return abs(value) or 0.5
    if legal in ("moderate", "nonzero"):
        value = value if abs(value) <= MODERATE else math.copysign(MODERATE - 0.3, value)
        return value or (0.5 if legal == "nonzero" else value)
    if legal == "unit_interval":
        size = abs(value)
        return 1e-5 if size == 0 else (size if size <= 1 else 1 / size)
    return value


def passed(node: Node) -> tuple[tuple[str, float | None], ...]:
    """The node's passed attributes, each with its second call's value (None: no second call)."""
    return tuple((str(name), second) for name, second in node.attr(PASSED, ()))


def param_name(position: int, name: str) -> str:
    """The lowered function's parameter for node `position`'s attribute `name`."""
    return f"{name}_{position}"


def parameters(graph: Graph) -> list[tuple[str, Any]]:
    """The scalar parameters of the lowered function, in node order: (name, value)."""
    return [(param_name(j, name), node.attr(name)) for j, node in enumerate(graph.nodes) for name, _ in passed(node)]


def values(graph: Graph) -> list[Any]:
    """What a call passes for the scalar parameters: each passed attribute's value."""
    return [value for _, value in parameters(graph)]


def has_second_call(graph: Graph) -> bool:
    return any(second is not None for node in graph.nodes for _, second in passed(node))


def second_call(graph: Graph) -> Graph:
    """The graph whose scalars are the second call's: each passed value and its second swap (so the source is the same)."""
    nodes = []
    for node in graph.nodes:
        swapped = {}
        kept = []
        for name, second in passed(node):
            if second is None:
                kept.append((name, None))
            else:
                swapped[name] = second
                kept.append((name, node.attr(name)))
        attrs = {**node.attr_dict, **swapped}
        if kept:
            attrs[PASSED] = tuple(kept)
        nodes.append(Node.make(node.op, node.args, **attrs))
    return Graph(graph.inputs, tuple(nodes), graph.outputs)


def as_literals(graph: Graph) -> Graph:
    """The same program with every scalar written into the source (nothing passed)."""
    nodes = tuple(Node.make(n.op, n.args, **{k: v for k, v in n.attrs if k != PASSED}) if passed(n) else n for n in graph.nodes)
    return Graph(graph.inputs, nodes, graph.outputs)
