"""Scalar arguments toward literals: a finding that shows with the scalars written into the source is filed so.

First every passed scalar at once, then one at a time; then, for those kept, the second call's value
dropped (the scalar stays an argument, called once). A stale-scalar finding keeps what it needs.
"""

from __future__ import annotations

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import smaller
from numfuzz.program.ir import Graph, Node
from numfuzz.program.scalars import PASSED, passed
from numfuzz.reduce.case_edit import rebuild
from numfuzz.reduce.shrinker import Candidates

Slot = tuple[int, str]  # (node position, attribute)


def _edited(case: Case, literal: set[Slot], once: set[Slot] = frozenset()) -> Case | None:
    """The case with the scalars at `literal` written into the source, and those at `once` without a second value."""
    nodes = []
    for j, node in enumerate(case.graph.nodes):
        kept = tuple((name, None if (j, name) in once else second) for name, second in passed(node) if (j, name) not in literal)
        attrs = {k: v for k, v in node.attrs if k != PASSED}
        nodes.append(Node.make(node.op, node.args, **attrs, **({PASSED: kept} if kept else {})))
    graph = Graph(case.graph.inputs, tuple(nodes), case.graph.outputs)
    return rebuild(case, graph, case.tensors())


def _slots(case: Case, with_second: bool = False) -> list[Slot]:
    return [(j, name) for j, node in enumerate(case.graph.nodes) for name, second in passed(node) if not with_second or second is not None]


class LiteralScalars:
    """Passed scalars written in as literals: all at once, then one at a time; then one call where two are not needed."""

    name = "literal-scalars"

    def candidates(self, case: Case) -> Candidates:
        current = case
        slots = _slots(current)
        if not slots:
            return
        candidate = smaller(_edited(current, set(slots)), current)
        if candidate is not None and (yield candidate):
            return
        for slot in slots if len(slots) > 1 else []:
            candidate = smaller(_edited(current, {slot}), current)
            if candidate is not None and (yield candidate):
                current = candidate
        for slot in _slots(current, with_second=True):
            candidate = smaller(_edited(current, set(), {slot}), current)
            if candidate is not None and (yield candidate):
                current = candidate
