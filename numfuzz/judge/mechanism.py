"""Mechanisms: known ways for compiled code to fail, recognised from the program, its run and the analysis rather than from one op or message.

A finding that shows a mechanism is filed under it whatever op it is located at and whatever its
target raises, and a known issue may name it (`mechanisms = [...]` in known_issues.toml): one bug is
one group whichever op or message it shows through.

* reduction-recompute -- Inductor's fused softmax takes the row max from values computed one way
  (scalar std::pow, unrounded fp32) and the elements from another (vectorised pow, bf16-rounded):
  where they differ by an ULP of a huge value, x - max(x) > 0 and exp overflows, or a row becomes 0.
  A fused layer_norm/group_norm recomputes its input in its statistics loop (vectorised, Sleef) and
  in another (scalar std::acosh, std::sin): x - mean(x) is not 0 where it is exactly 0 in eager.
  Located at the reduction, or at an op whose fused program from there into one fails.
* zero-dim-broadcast-gradient -- with gradients, a 0-dim intermediate (a full reduction) meets a
  value of more dims in a broadcasting op: a backward that hands it a gradient of its partner's
  shape fails to compile (Thunder's `expand`, Dynamo's fake-tensor call, an auto-registered vjp),
  or gives its gradient unreduced. Any crash, or a gradient finding, of such a program.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from numfuzz.judge.cause import BACKWARD, NONFINITE_INTERMEDIATE, UNEXPLAINED
from numfuzz.judge.facts import Analysis
from numfuzz.judge.signature import Signature
from numfuzz.judge.verdicts import ACCURACY_SYMPTOMS
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.program.ops import OPS, infer_specs
from numfuzz.run_spec import RunSpec

Shows = Callable[[Signature, Graph, "Analysis | None", "RunSpec | None"], bool]


@dataclass(frozen=True)
class Mechanism:
    """A known way for compiled code to fail: its name (what a known issue names), its group title, and its test."""

    name: str
    title: str
    shows: Shows
    # findings that show it are one group whatever their op; False: it only lets a known issue name it (a crash's own
    # message, on a target the issue does not cover, stays its group)
    groups: bool = True


RECOMPUTING = tuple(name for name, spec in OPS.items() if spec.recomputes_input)  # ops that reduce a row and recompute its elements
_UNCERTAIN_LOCATION = ("cutting", "fallback")  # where exposing values changed what the compiler fused


def _recomputed(signature: Signature, graph: Graph, facts: Analysis | None, run: RunSpec | None) -> bool:
    """Its culprit is such a reduction, or an op whose fused program from there into one fails while its own value, exposed, does not."""
    if signature.symptom not in ACCURACY_SYMPTOMS or facts is None or not signature.ops:
        return False
    if signature.cause not in (NONFINITE_INTERMEDIATE.name, UNEXPLAINED.name):
        return False
    if set(signature.ops) & set(RECOMPUTING):
        return True
    if facts.culprit is None:
        return False
    node, located = facts.culprit.node, facts.culprit.located
    if not located.startswith(_UNCERTAIN_LOCATION) or not 0 <= node < len(graph.nodes):
        return False
    n_in = len(graph.inputs)
    downstream = {k for out in graph.outputs for k in cone(graph, out) if k > node and n_in + node in _inputs_of(graph, k)}
    return any(graph.nodes[k].op in RECOMPUTING for k in downstream)


def _zero_dim_broadcast(signature: Signature, graph: Graph, facts: Analysis | None, run: RunSpec | None) -> bool:
    """With gradients, a crash or a gradient finding of a program where a 0-dim value made of more dims meets a value of more dims."""
    if run is None or not run.grad:
        return False
    crash = signature.symptom.startswith("crash_")
    if not crash and not (signature.symptom in ACCURACY_SYMPTOMS and signature.cause == BACKWARD.name):
        return False
    specs, n_in = infer_specs(graph), len(graph.inputs)
    scalars: set[int] = set()  # 0-dim values made from values of more dims (a full reduction, and what follows from it alone)
    for j, node in enumerate(graph.nodes):
        if not specs[n_in + j].shape and any(specs[a].shape or a in scalars for a in node.args):
            scalars.add(n_in + j)
    return any(set(node.args) & scalars and any(specs[a].shape for a in node.args) for node in graph.nodes)


MECHANISMS = (
    Mechanism("reduction-recompute", "reduction and its recomputed input disagree", _recomputed),
    Mechanism("zero-dim-broadcast-gradient", "gradient of a 0-dim intermediate broadcast against more dims", _zero_dim_broadcast, groups=False),
)


def mechanism_of(signature: Signature, graph: Graph, facts: Analysis | None, run: RunSpec | None = None) -> Mechanism | None:
    """The first mechanism a finding shows, or None; `run`: how its case ran (gradients), where known."""
    return next((m for m in MECHANISMS if m.shows(signature, graph, facts, run)), None)


def _inputs_of(graph: Graph, k: int) -> set[int]:
    """The values node k depends on, transitively."""
    n_in = len(graph.inputs)
    return {n_in + j for j in cone(graph, n_in + k) if j != k} | {a for a in graph.nodes[k].args if a < n_in}
