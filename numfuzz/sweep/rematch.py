"""A sweep's stored cells judged by today's known issues: a failure recorded before an entry named it is matched again by
its message, under the versions the sweep ran with (`OUT/versions.json`), as `numfuzz corpus` matches stored findings.

Only a cell whose verdict a message carries (a crash, a refusal, a mismatch) is matched again: an accuracy verdict's
known issues read the analysis's facts (its cause, its culprit op), which a record keeps in part only, and its cell is
judged again by running it (a new sweep folder).
"""

from __future__ import annotations

from typing import Any

from numfuzz.judge.verdicts import Verdict


def rematched(results: dict[str, dict[str, Any]], versions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """`results` (by cell key) with each unexplained failure that a known issue now explains marked known."""
    from numfuzz.corpus.known import load_known

    known = load_known()
    return {key: _rematched(record, known, versions) for key, record in results.items()}


def _rematched(record: dict[str, Any], known: list, versions: dict[str, Any]) -> dict[str, Any]:
    from numfuzz.corpus.known import match_known
    from numfuzz.judge.execute import Outcome
    from numfuzz.judge.signature import signature_of
    from numfuzz.sweep.cell import known_kind

    if record.get("known") or not record.get("finding") or record.get("op") or record.get("module"):
        return record
    try:
        verdict = Verdict(str(record.get("verdict")))
    except ValueError:
        return record
    if verdict.is_accuracy or not verdict.is_finding:
        return record
    issue = match_known(known, signature_of(str(record["target"]), Outcome(verdict, str(record.get("detail") or ""))), versions)
    if issue is None:
        return record
    return {**record, "known": issue.id, "known_kind": known_kind(issue.id), "finding": False}
