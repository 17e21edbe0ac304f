"""A dropped cast seen only by cutting: the fused program from a narrowing cast on fails, from the op after it on it does not.

The case it was written for (the quick start on torch 2.11, thunder:torchcompile): `x3.to(fp16)` of bf16 values near 3e29
overflows to -inf, the fused kernel keeps the finite fp32 value, and `remainder` of that huge value then errs in its
own way, so the program with the cast taken as a no-op does not explain the target either. Cutting locates the cast.
"""

from __future__ import annotations

from numfuzz.judge.cast_dropped import cast_dropped_at_cut
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Culprit
from numfuzz.judge.localize import Suffix
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

GRAPH = Graph(
    (TensorSpec((1, 1), "fp16"), TensorSpec((4, 4), "bf16")),
    (Node.make("cast", [1], dtype="fp16"), Node.make("remainder", [2, 0]), Node.make("exp", [0])),
    (3, 4),
)


def _evidence(node: int, op: str, cut: bool) -> Evidence:
    ev = Evidence(GRAPH, [], resolve("eager"), "cpu", Outcome(Verdict.LESS_ACCURATE), 0)
    ev.culprit = Culprit(node, op, "fp16", "less_accurate", "cutting" if cut else "probe")
    ev.suffix = Suffix(GRAPH, [], Outcome(Verdict.LESS_ACCURATE), 0) if cut else None
    return ev


def test_a_narrowing_cast_located_by_cutting_is_a_dropped_cast():
    found = cast_dropped_at_cut(_evidence(0, "cast", cut=True))
    assert found is not None and found.cause == "cast_dropped" and found.op == "cast" and found.dtype == "fp16"
    assert "does not round at the cast" in found.evidence[0]


def test_only_a_cast_and_only_where_cutting_located_it():
    assert cast_dropped_at_cut(_evidence(0, "cast", cut=False)) is None  # the probe saw its value: not elided
    assert cast_dropped_at_cut(_evidence(1, "remainder", cut=True)) is None
