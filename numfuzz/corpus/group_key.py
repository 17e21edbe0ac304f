"""The root cause a finding is filed under, and the group's name: one type for the corpus listing, the report and a campaign's dedupe.

A finding's key is, first that applies: the known upstream issue it matches (one group per issue
and target, whatever its causes, dtypes and ops); the mechanism it shows (`numfuzz.judge.mechanism`); else its signature's own fold (`Signature.group_key`:
target and cause, with the op unless the cause is one root cause whatever the op).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from numfuzz.corpus.known import KnownIssue, match_known
from numfuzz.judge.facts import Analysis
from numfuzz.judge.cause import root_title
from numfuzz.judge.mechanism import Mechanism, mechanism_of
from numfuzz.judge.signature import Signature
from numfuzz.judge.verdicts import LOST_SYMPTOMS, Verdict
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.run_spec import RunSpec


TITLE_MESSAGE = 90  # characters of a crash's message in its group's title


@dataclass(frozen=True)
class GroupKey:
    parts: tuple  # what identifies the group; a campaign's journal stores it as JSON (`text`)
    signature: Signature  # the signature of the finding the key was made from
    known: KnownIssue | None = None
    mechanism: Mechanism | None = None

    @staticmethod
    def of(
        signature: Signature, graph: Graph | None, facts: Analysis | None, known: Sequence[KnownIssue], provenance: dict[str, Any], run: RunSpec | None = None
    ) -> GroupKey:
        """The key of a finding: its signature, its program (None: not at hand), its facts, the known issues to match,
        and how its case ran (None: not at hand)."""
        mechanism = mechanism_of(signature, graph, facts, run) if graph is not None else None
        upstream = culprit_cone_ops(graph, facts) or unlocated_candidates(signature, graph)
        issue = match_known(known, signature, provenance, mechanism.name if mechanism is not None else "", upstream)
        if issue is not None:
            return GroupKey(("known", issue.id, signature.target), signature, issue, mechanism)
        if mechanism is not None and mechanism.groups:
            return GroupKey(("mechanism", mechanism.name, signature.target), signature, None, mechanism)
        return GroupKey(signature.group_key(), signature)

    def text(self) -> str:
        """The key as a campaign's journal stores it."""
        return json.dumps(self.parts)

    def title(self, ops: Iterable[str] = (), dtypes: Iterable[str] = (), signature: Signature | None = None) -> str:
        """The group's name, as the corpus table, the report and a dedupe note show it: `ops` and `dtypes` over its
        findings, `signature` the one it is named by (its smallest finding's; default: the key's own)."""
        signature = signature or self.signature
        ops = "+".join(sorted(set(ops) or set(signature.ops))) or "?"
        dtypes = ",".join(sorted({d for d in dtypes if d} or ({signature.dtype} if signature.dtype else set()))) or "-"
        if self.known is not None:
            return f"{signature.where} | known issue {self.known.id}"
        if self.mechanism is not None:
            return f"{signature.where} | {self.mechanism.title} | {ops} | {dtypes}"
        if root_title(signature.cause):
            return f"{signature.where} | {root_title(signature.cause)}"
        if signature.cause:
            return f"{signature.where} | {'+'.join(signature.ops) or '?'} | {dtypes} | {signature.cause}"
        if signature.fingerprint:  # a crash: named by the ops its minimised members keep, and its message
            message = signature.fingerprint if len(signature.fingerprint) <= TITLE_MESSAGE else signature.fingerprint[: TITLE_MESSAGE - 3] + "..."
            if signature.symptom in (Verdict.MISMATCH.value, Verdict.METADATA.value, Verdict.EXACT_MISMATCH.value):  # its message names each op and what differs
                return f"{signature.where} | {signature.symptom} | {message}"
            # a refusal is the target's whatever mode or options it was drawn in: named by the target alone
            where = signature.target if signature.symptom == Verdict.UNSUPPORTED.value else signature.where
            return f"{where} | {signature.symptom} | {ops} | {message}"
        return signature.text()


def culprit_cone_ops(graph: Graph | None, facts: Analysis | None) -> frozenset[str]:
    """The ops the culprit depends on, itself included (none where the program or the culprit is not at hand); for a
    gradient, also the ops that depend on it (their backward runs before the culprit's and hands it its gradient), and
    for a culprit located by cutting, the fused program from it on, which is what failed."""
    if graph is None or facts is None or facts.culprit is None or not 0 <= facts.culprit.node < len(graph.nodes):
        return frozenset()
    n_in, node = len(graph.inputs), facts.culprit.node
    found = set(cone(graph, n_in + node))
    if facts.gradient_of is not None or facts.culprit.located.startswith("cutting"):
        found |= {k for k in range(node + 1, len(graph.nodes)) if node in cone(graph, n_in + k)}
    return frozenset(graph.nodes[k].op for k in found)


def unlocated_candidates(signature: Signature, graph: Graph | None) -> frozenset[str]:
    """A lost worker's or a crash's finding not yet minimised (the process's death or an exception, no op named): every
    op of its program is a candidate culprit, for a known-issue rule that names the symptom (`KnownIssue.matches`)."""
    crashed = signature.symptom in LOST_SYMPTOMS or signature.symptom.startswith("crash_")  # a crash, as judge.mechanism tells one
    if graph is None or signature.located or not crashed:
        return frozenset()
    return frozenset(n.op for n in graph.nodes)
