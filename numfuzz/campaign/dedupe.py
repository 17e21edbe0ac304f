"""Which findings a campaign minimises: one per root cause, none for what is already known or only rounding.

A finding's key is its group key (`numfuzz.corpus.group_key.GroupKey`), from the analysis its
worker ran: the same root cause is minimised once, whatever op consumes a dropped cast, whatever
the dtype, and a mechanism (the softmax(pow) class) once whatever op it is located at. A finding
that a known upstream issue claims is minimised once per issue and target. An outcome within the
documented bounds (`within_rounding`) is no finding and never reaches here; one that a user's
bounds file (`--bounds`) judges so is not minimised either. A finding a known issue or the
target's own refusal explains is minimised after the new ones (`Decision.explained`). Each finding
left unminimised gets its reason in the corpus's `minimize_notes.json`, so that none ends silently
unminimised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from numfuzz.corpus.case import Case, recorded_outcome
from numfuzz.corpus.group_key import GroupKey
from numfuzz.corpus.grouping import NOTES, minimize_notes
from numfuzz.corpus.known import KnownIssue
from numfuzz.corpus.store import write_atomic
from numfuzz.judge.bounds import Bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.rules import verdict_of
from numfuzz.judge.signature import Signature, signature_of
from numfuzz.judge.verdicts import Verdict


def known_key(issue: KnownIssue, target: str) -> str:
    return f"known:{issue.id}|{target}"


@dataclass(frozen=True)
class Decision:
    """A finding to minimise: under which key, and whether a known issue or the target's refusal already explains it
    (minimised after every new finding, `campaign.minimize_scheduler`)."""

    key: str
    explained: bool


class Dedupe:
    """Decides, per finding, whether to minimise it; remembers the keys it has handed out."""

    def __init__(self, keys: set[str], known: Sequence[KnownIssue], corpus: Path | None, bounds: Bounds):
        self.keys = keys  # the journal's set: it persists with the campaign
        self.known = known
        self.bounds = bounds
        self.corpus = corpus
        self.notes = minimize_notes(corpus) if corpus is not None else {}

    def decide(self, case: Case, outcome: dict[str, Any], finding: str) -> Decision | None:
        """The key to minimise this finding under and whether it is explained, or None (with a note saying why not)."""
        parsed = Outcome.from_json(outcome)
        signature = signature_of(case.target, parsed, case.run, case.graph)
        verdict = verdict_of(parsed, self.bounds)
        if verdict is Verdict.WITHIN_ROUNDING:
            return self._note(finding, "within_rounding: within the op's documented error bound")
        if not verdict.is_finding:  # another benign rule, under a user's --bounds
            return self._note(finding, f"{verdict.value}: judged benign by the rules")
        group = GroupKey.of(signature, case.graph, parsed.analysis, self.known, case.provenance, case.run)
        key, issue = group.text(), group.known
        if key in self.keys:
            what = f"known issue {issue.id}" if issue is not None else f"its group ({group.title()})"
            return self._note(finding, f"{what} is minimised from another finding")
        if issue is not None:
            if known_key(issue, case.target) in self.keys:
                return self._note(finding, f"known issue {issue.id}, already minimised from another finding")
            self.keys.add(known_key(issue, case.target))
        self.keys.add(key)
        return Decision(key, issue is not None or verdict.is_refusal)

    def minimized(self, case: Case) -> None:
        """A minimised case's own group: later findings keyed by it are duplicates."""
        data = case.extra.get("signature")
        if isinstance(data, dict):
            try:
                signature = Signature.from_json(data)
            except (KeyError, TypeError):
                return
            self.keys.add(GroupKey.of(signature, case.graph, recorded_outcome(case).analysis, self.known, case.provenance, case.run).text())

    def failed(self, finding: str, why: str) -> None:
        self._note(finding, f"minimisation failed: {why}")

    def _note(self, finding: str, why: str) -> None:
        self.notes[finding] = why
        if self.corpus is not None:
            write_atomic(self.corpus / NOTES, json.dumps(self.notes, indent=1, sort_keys=True) + "\n")
        return None
