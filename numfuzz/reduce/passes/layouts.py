"""Inputs laid out plainly: a strided view (permuted, stepped, expanded) replaced by a contiguous input of the same values."""

from __future__ import annotations

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import smaller
from numfuzz.program.ir import Graph
from numfuzz.reduce.case_edit import rebuild
from numfuzz.reduce.shrinker import Candidates


class PlainLayouts:
    """Every input plain at once; then one input at a time. A finding that needs its layout keeps it."""

    name = "plain-layouts"

    def candidates(self, case: Case) -> Candidates:
        current = case
        strided = [i for i, s in enumerate(current.graph.inputs) if s.layout is not None]
        if not strided:
            return
        candidate = smaller(_plain(current, strided), current)
        if candidate is not None and (yield candidate):
            return
        for i in strided if len(strided) > 1 else []:
            candidate = smaller(_plain(current, [i]), current)
            if candidate is not None and (yield candidate):
                current = candidate


def _plain(case: Case, which: list[int]) -> Case | None:
    g = case.graph
    inputs = tuple(s.with_layout(None) if i in which else s for i, s in enumerate(g.inputs))
    return rebuild(case, Graph(inputs, g.nodes, g.outputs), case.tensors())
