"""Autocast regions toward none: a finding that shows without `torch.autocast` is filed without it.

First every node out of its region at once, then one node at a time, so that what is left is
the region the finding needs (often the one op autocast casts).
"""

from __future__ import annotations

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import smaller
from numfuzz.program.autocast import region, without_region
from numfuzz.program.ir import GraphError
from numfuzz.reduce.case_edit import rebuild
from numfuzz.reduce.shrinker import Candidates


def _without(case: Case, positions: list[int] | None) -> Case | None:
    try:
        return rebuild(case, without_region(case.graph, positions), case.tensors())
    except GraphError:  # a dtype the region gave is what a later op needs
        return None


class NoAutocast:
    """Nodes out of their autocast region: all at once, then one at a time."""

    name = "no-autocast"

    def candidates(self, case: Case) -> Candidates:
        current = case
        inside = [j for j, node in enumerate(current.graph.nodes) if region(node) is not None]
        if not inside:
            return
        candidate = smaller(_without(current, None), current)
        if candidate is not None and (yield candidate):
            return
        for j in inside if len(inside) > 1 else []:
            candidate = smaller(_without(current, [j]), current)
            if candidate is not None and (yield candidate):
                current = candidate
