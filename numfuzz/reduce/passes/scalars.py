"""Scalar arguments toward literals, and scalar attributes toward simple values.

`LiteralScalars`: a finding that shows with the scalars written into the source is filed so. First
every passed scalar at once, then one at a time; then, for those kept, the second call's value
dropped (the scalar stays an argument, called once). A stale-scalar finding keeps what it needs.
`SimplerScalars`: each float attribute drawn from the scalar recipe (a margin of 1.7, an eps of
1e-40) tried at 0, 1, 0.5, 2 and its nearest integer, kept where the finding holds.
"""

from __future__ import annotations

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import smaller
from numfuzz.program.ir import Graph, Node
from numfuzz.program.ops import lookup
from numfuzz.program.scalars import LEGAL, PASSED, legalise, passed
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


SIMPLE = (0.0, 1.0, 0.5, 2.0)


def _simpler_values(value: float, legal: str) -> list[float]:
    """Simpler values than `value` that `legal` allows (the size order rejects those that are not simpler)."""
    tries = [*SIMPLE, float(round(value))]
    tries += [-t for t in tries]
    if legal in LEGAL:
        tries = [legalise(t, legal) for t in tries]
    elif legal == "bound_nonneg":
        tries = [abs(t) for t in tries]
    return [t for t in dict.fromkeys(tries) if t != value]


def _with_attribute(case: Case, position: int, name: str, value: float) -> Case | None:
    nodes = list(case.graph.nodes)
    node = nodes[position]
    nodes[position] = Node.make(node.op, node.args, **{**node.attr_dict, name: value})
    return rebuild(case, Graph(case.graph.inputs, tuple(nodes), case.graph.outputs), case.tensors())


class SimplerScalars:
    """Each scalar attribute of the recipe toward 0, +-1, +-0.5, +-2 or its nearest integer, the first that keeps the finding."""

    name = "simpler-scalars"

    def candidates(self, case: Case) -> Candidates:
        current = case
        for position, node in enumerate(case.graph.nodes):
            for name, legal in lookup(node.op).scalars:
                value = node.attr(name)
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    continue
                for simpler in _simpler_values(float(value), legal):
                    candidate = smaller(_with_attribute(current, position, name, simpler), current)
                    if candidate is not None and (yield candidate):
                        current = candidate
                        break
