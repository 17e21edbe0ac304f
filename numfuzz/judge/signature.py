"""What a finding is about: its signature (target, symptom, culprit op, dtype).

* symptom -- the verdict; for a crash also the exception's class (`crash_compile:TypeError`).
* ops     -- for accuracy findings (less_accurate, nonfinite), the op that makes the difference:
             the first node, in program order, of the flagged output's cone whose own value the
             oracle flags when every value of that cone is made an output (one extra compile).
             When exposing the intermediates hides the bug, it is the flagged output's own op.
             For other symptoms it is unknown `()` until minimisation, which names the ops left.
* dtype   -- the dtype of that op's value ("" when not located).

Minimisation keeps the signature: a candidate counts only when an output with the same
symptom has, in its cone, a node of the culprit op with the culprit dtype (`same_finding`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from numfuzz.judge.execute import Outcome
from numfuzz.judge.oracle import OutputErrors, bits_lost
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone, with_outputs
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs

ACCURACY = (Verdict.LESS_ACCURATE, Verdict.NONFINITE)


_LEADING_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*):")  # "TypeError: ..." as execute reports a crash


_EXCEPTION = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Interrupt))\b")


@dataclass(frozen=True)
class Signature:
    target: str
    symptom: str
    ops: tuple[str, ...] = ()
    dtype: str = ""

    @property
    def located(self) -> bool:
        return bool(self.ops)

    def text(self) -> str:
        return f"{self.target} | {self.symptom} | {'+'.join(self.ops) or '?'} | {self.dtype or '-'}"

    def to_json(self) -> dict:
        return {"target": self.target, "symptom": self.symptom, "ops": list(self.ops), "dtype": self.dtype}

    @staticmethod
    def from_json(data: dict) -> Signature:
        return Signature(str(data["target"]), str(data["symptom"]), tuple(str(o) for o in data.get("ops", [])), str(data.get("dtype", "")))


def symptom_of(outcome: Outcome) -> str:
    if outcome.verdict in ACCURACY or not outcome.verdict.is_finding:
        return outcome.verdict.value
    detail = outcome.detail.removeprefix("prepare raised ")
    found = _LEADING_NAME.match(detail) or _EXCEPTION.search(detail)
    return f"{outcome.verdict.value}:{found.group(1).rsplit('.', 1)[-1]}" if found else outcome.verdict.value


def flagged_output(outcome: Outcome) -> OutputErrors | None:
    """The output that carries the case's verdict and loses the most bits against eager."""
    flagged = [o for o in outcome.outputs if o.verdict == outcome.verdict.value and o.elements]
    return max(flagged, key=lambda o: (bits_lost(o), -o.index)) if flagged else None


def severity(outcome: Outcome) -> float | None:
    """Bits lost against eager (inf for non-finite); None where the symptom has no such measure."""
    flagged = flagged_output(outcome)
    if flagged is None or outcome.verdict not in ACCURACY:
        return None
    return math.inf if outcome.verdict is Verdict.NONFINITE else bits_lost(flagged)


def locate(graph: Graph, outcome: Outcome, run: Callable[[Graph], Outcome]) -> tuple[tuple[str, ...], str]:
    """(ops, dtype) that make the difference; `run` evaluates a graph on the target (one compile)."""
    flagged = flagged_output(outcome)
    if outcome.verdict not in ACCURACY or flagged is None:
        return (), ""
    nodes = cone(graph, graph.outputs[flagged.index])
    if not nodes:
        return (), ""
    n_in = len(graph.inputs)
    specs = infer_specs(graph)
    if len(nodes) > 1:
        probe = run(with_outputs(graph, [n_in + k for k in nodes]))
        for errors in probe.outputs:
            if errors.verdict == outcome.verdict.value and errors.elements:
                k = nodes[errors.index]
                return (graph.nodes[k].op,), specs[n_in + k].dtype
    k = nodes[-1]
    return (graph.nodes[k].op,), specs[n_in + k].dtype


def same_finding(signature: Signature, graph: Graph, outcome: Outcome) -> bool:
    """Does this outcome of `graph` show the finding `signature` describes (and not another one)?"""
    if symptom_of(outcome) != signature.symptom:
        return False
    if not signature.located or outcome.verdict not in ACCURACY:
        return True
    specs = infer_specs(graph)
    n_in = len(graph.inputs)
    for errors in outcome.outputs:
        if errors.verdict != outcome.verdict.value or not errors.elements:
            continue
        for k in cone(graph, graph.outputs[errors.index]):
            if graph.nodes[k].op in signature.ops and specs[n_in + k].dtype == signature.dtype:
                return True
    return False
