"""A stale scalar: the second call of a dynamic compile is nearer eager with the first call's Python scalar.

The second call (`judge.second_size`) records which scalar arguments changed and whether the compiled
result reused their first values (`second_size.reuses_first_scalars`). Such a finding is decided here,
whole: it is filed at the op whose scalar was reused, and nothing is located.
"""

from __future__ import annotations

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import STALE_SCALAR
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.facts import Analysis
from numfuzz.program.ops import infer_specs
from numfuzz.program.scalars import param_name, passed


def stale_scalar(ev: Evidence, bounds: Bounds) -> Analysis | None:
    """The cause of a second call whose compiled result is eager's with the first call's scalars (`reuses_first_scalars`):
    filed at the op whose scalar argument was reused; nothing is located (a fresh compile would take the new value).
    None for any other outcome."""
    graph, outcome = ev.graph, ev.outcome
    stale = (outcome.second_size or {}).get("stale_scalars")
    if not stale or not outcome.oracle.is_accuracy:
        return None
    names = {param_name(j, name): j for j, node in enumerate(graph.nodes) for name, _ in passed(node)}
    node = names.get(stale[0], 0)
    changed = {name: (first, second) for name, first, second in outcome.second_size.get("scalars", [])}
    said = ", ".join(f"{name} = {changed[name][1]!r} (first call: {changed[name][0]!r})" for name in stale if name in changed)
    why = f"the second call passes {said}; wherever the compiled result parts from eager's, it is nearer eager with the first call's value: that value was kept"
    return Analysis(ev.output, STALE_SCALAR.name, [why], graph.nodes[node].op, infer_specs(graph)[len(graph.inputs) + node].dtype)
