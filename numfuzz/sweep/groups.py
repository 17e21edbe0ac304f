"""A sweep's findings grouped across architectures by root cause: one Thunder gap met in 30 models is one group of 30.

A cell's group key is what makes two cells one cause:
* a known issue: its id and target (the known entry is the cause, whatever the message's details);
* a refusal (`unsupported`: the target's own explicit refusal), a crash, and a `state` finding: the target and
  the message's fingerprint (`judge.crash.crash_fingerprint`: its first line with shapes, numbers, names of
  temporaries and paths taken out), so one missing rule, or one mode left changed, is one group whatever the model;
* an accuracy finding located at an op (a module alone worse, the op inside it): the target, the op, the
  cause there (`op_cause`) and the mode, whatever the whole model's verdict (a dropped upcast may leave the logits equal);
  one not located: the target, the verdict, the cause, the mode and what loses the most (the loss, a
  gradient, an output);
* `invalid` (the model or its float64 reference fails, numfuzz's side): the fingerprint, kept apart.

A group is `new` when it is a finding no known issue explains, `known` (a known bug), `limitation` (a
known limitation), `unsupported`, or `invalid`; new groups come first, the largest first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numfuzz.judge.crash import crash_fingerprint
from numfuzz.sweep.summary import cell_state

ACCURACY = ("less_accurate", "nonfinite")
STATUS_ORDER = ("new", "known", "limitation", "unsupported", "invalid")


@dataclass
class Group:
    key: tuple[str, ...]
    status: str  # one of STATUS_ORDER
    title: str
    members: list[dict[str, Any]] = field(default_factory=list)

    @property
    def architectures(self) -> list[str]:
        return sorted({r["model"] for r in self.members})

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "title": self.title, "architectures": self.architectures, "cells": sorted(r["key"] for r in self.members)}


def _status(record: dict[str, Any]) -> str | None:
    """The group status of a cell, from its state (`summary.cell_state`): a refusal is a limitation where a known issue says so."""
    state = cell_state(record)
    if state == "refuses":
        return "limitation" if record.get("known") else "unsupported"
    return {"known": "known", "invalid": "invalid", "runs": None}.get(state, "new")


def group_key(record: dict[str, Any]) -> tuple[tuple[str, ...], str] | None:
    """A cell's group key and the group's title; None for a cell that belongs to no group (clean, within rounding)."""
    status = _status(record)
    if status is None:
        return None
    target, verdict = str(record["target"]), str(record.get("verdict", ""))
    if status in ("known", "limitation"):
        return ("known", str(record["known"]), target), f"{target}: known issue {record['known']}"
    cause = f" ({record['cause']})" if record.get("cause") else ""
    if record.get("finding") and record.get("op"):
        at = f" ({record['op_cause']})" if record.get("op_cause") else ""
        key = ("at op", target, str(record["op"]), record.get("op_cause") or "", str(record["mode"]))
        return key, f"{target}: {record['mode']}, worse at {record['op']}{at}"
    if verdict in ACCURACY or (record.get("finding") and record.get("module")):
        what = record.get("worst") or "module alone"
        parts = (target, verdict, record.get("cause") or "", str(record["mode"]), what)
        return ("accuracy", *parts), f"{target}: {record['mode']}, the {what} {verdict.replace('_', ' ')}{cause}"
    fingerprint = crash_fingerprint(str(record.get("detail") or ""))
    return (status, target, verdict, fingerprint), f"{target}: {verdict} {fingerprint}"


def group_records(records: list[dict[str, Any]]) -> list[Group]:
    """The groups of a sweep's records: new first, then known, limitations, refusals, invalid; within each, the largest first."""
    groups: dict[tuple[str, ...], Group] = {}
    for record in records:
        found = group_key(record)
        if found is None:
            continue
        key, title = found
        group = groups.setdefault(key, Group(key, _status(record) or "new", title))
        group.members.append(record)
    return sorted(groups.values(), key=lambda g: (STATUS_ORDER.index(g.status), -len(g.architectures), g.title))


def describe_groups(groups: list[Group], limit: int = 8) -> str:
    """The groups as text: each its status, title, and how many architectures (the first `limit` named)."""
    lines = []
    for g in groups:
        names = [a.removeprefix("hf:") for a in g.architectures]
        shown = ", ".join(names[:limit]) + (f", and {len(names) - limit} more" if len(names) > limit else "")
        lines.append(f"[{g.status}] {g.title}: {len(names)} architecture{'s' if len(names) != 1 else ''} ({shown})")
    return "\n".join(lines)
