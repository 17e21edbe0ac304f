"""What a finding is about: its signature (target, symptom, culprit op, dtype), and dedupe by it.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from numfuzz.corpus import Case, CaseError, load_case
from numfuzz.execute import Outcome
from numfuzz.graph_edit import cone, with_outputs
from numfuzz.ir import Graph, GraphError
from numfuzz.ops import infer_specs
from numfuzz.oracle import OutputErrors, bits_lost
from numfuzz.verdicts import Verdict

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
    def from_json(data: dict) -> "Signature":
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


def stored_signature(case: Case) -> Signature | None:
    data = case.extra.get("signature")
    try:
        return Signature.from_json(data) if isinstance(data, dict) else None
    except (KeyError, TypeError):
        return None


def recorded_signature(case: Case) -> Signature:
    """The stored signature, else an unlocated one from the recorded result (no compile)."""
    stored = stored_signature(case)
    if stored is not None:
        return stored
    return Signature(case.target, symptom_of(recorded_outcome(case)))


def recorded_outcome(case: Case) -> Outcome:
    """The outcome stored with the case; invalid when there is none or it does not parse."""
    try:
        return Outcome.from_json(case.result) if isinstance(case.result, dict) else Outcome(Verdict.INVALID)
    except (KeyError, TypeError, ValueError):
        return Outcome(Verdict.INVALID, "unreadable recorded result")


# --- dedupe over a corpus folder -----------------------------------------------------------------


@dataclass
class Group:
    signature: Signature
    findings: set[str] = field(default_factory=set)  # one id per original finding
    severity: float | None = None  # the worst over the group
    smallest: Path | None = None
    smallest_key: tuple = ()

    @property
    def count(self) -> int:
        return len(self.findings)


def finding_id(case: Case) -> str:
    """A minimised case counts as the finding it came from."""
    original = case.extra.get("original")
    if isinstance(original, dict) and isinstance(original.get("hash"), str):
        return original["hash"]
    return case.content_hash()


CASE_FOLDERS = ("findings", "minimized")  # in a campaign's corpus; elsewhere every *.json counts


def group_corpus(directory: Path) -> tuple[list[Group], list[str]]:
    """Findings under `directory`, folded by signature; also one line per unreadable file.

    In a campaign corpus the case folders are searched; in any other folder, every *.json below it.
    """
    from numfuzz.shrink import size_key

    cases: list[tuple[Path, Case]] = []
    problems: list[str] = []
    root = Path(directory)
    folders = [root / name for name in CASE_FOLDERS if (root / name).is_dir()] or [root]
    paths = sorted({p for folder in folders for p in folder.rglob("*.json") if not p.name.startswith(".")})
    for path in paths:
        try:
            case = load_case(path)
            case.tensors()
        except CaseError as exc:
            problems.append(str(exc))
            continue
        if recorded_outcome(case).verdict.is_finding:
            cases.append((path, case))
    # A finding may have several versions (found, minimised): they share the best signature any
    # of them knows, and the smallest version stands for the finding (its severity, its path).
    versions: dict[str, list[tuple[tuple, Path, Case]]] = {}
    for path, case in cases:
        try:
            key = size_key(case)
        except GraphError as exc:  # an ill-typed graph in a stored case: report it, keep listing
            problems.append(f"{path}: {exc}")
            continue
        versions.setdefault(finding_id(case), []).append((key, path, case))
    groups: dict[Signature, Group] = {}
    for fid, found in versions.items():
        signatures = [recorded_signature(case) for _, _, case in found]
        signature = next((s for s in signatures if s.located), signatures[0])
        key, path, case = min(found, key=lambda v: (v[0], str(v[1])))
        group = groups.setdefault(signature, Group(signature))
        group.findings.add(fid)
        sev = severity(recorded_outcome(case))
        if sev is not None:
            group.severity = sev if group.severity is None else max(group.severity, sev)
        if group.smallest is None or key < group.smallest_key:
            group.smallest, group.smallest_key = path, key
    order = sorted(groups.values(), key=lambda g: (-(g.severity if g.severity is not None else -1.0), -g.count, g.signature.text()))
    return order, problems
