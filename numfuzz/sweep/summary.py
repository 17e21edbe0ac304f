"""A sweep summed up per target: how many architectures run, refuse, crash, or are less accurate, in each mode.

An architecture's state on a target (in a mode, or over both) is the most telling of its cells' there:
less accurate (an accuracy finding no known issue explains, a module alone worse included) before a
crash (no known issue), a crash before a known bug, a known bug before a refusal (`unsupported`, or a
known limitation), a refusal before `invalid` (the model or its reference fails: numfuzz's side), and
`runs` only where every cell ran and none is worse than eager.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

STATES = ("less_accurate", "crash", "known", "refuses", "invalid", "runs")
# wrong, silently: the values, their layout, or the global modes a call leaves (`state`), counted with the less accurate
ACCURACY = {"less_accurate", "nonfinite", "position_dependent", "mismatch", "nondeterministic", "metadata", "state"}


def cell_state(record: dict[str, Any]) -> str:
    """One cell's state, one of STATES."""
    verdict = str(record.get("verdict", ""))
    if record.get("known"):
        return "refuses" if record.get("known_kind") == "limitation" else "known"
    if verdict == "unsupported":
        return "refuses"
    if verdict == "invalid":
        return "invalid"
    if not record.get("finding"):
        return "runs"
    return "less_accurate" if verdict in ACCURACY or record.get("module") else "crash"


def _worst(states: list[str]) -> str:
    return min(states, key=STATES.index)


@dataclass
class TargetSummary:
    target: str
    by_mode: dict[str, dict[str, int]] = field(default_factory=dict)  # mode ("forward", "train", "any") -> state -> architectures

    def count(self, mode: str, state: str) -> int:
        return self.by_mode.get(mode, {}).get(state, 0)


def summarize(records: list[dict[str, Any]]) -> list[TargetSummary]:
    """Per target, per mode and over both ("any"): how many architectures are in each state."""
    states: dict[tuple[str, str, str], list[str]] = defaultdict(list)  # (target, mode, model) -> its cells' states
    for r in records:
        for mode in (str(r["mode"]), "any"):
            states[(str(r["target"]), mode, str(r["model"]))].append(cell_state(r))
    found: dict[str, TargetSummary] = {}
    for (target, mode, _model), cells in sorted(states.items()):
        summary = found.setdefault(target, TargetSummary(target))
        counts = summary.by_mode.setdefault(mode, dict.fromkeys(STATES, 0))
        counts[_worst(cells)] += 1
    return list(found.values())


def describe_summary(summaries: list[TargetSummary]) -> str:
    """A Markdown table: per target and mode, architectures judged and how many in each state."""
    head = "| target | mode | architectures | " + " | ".join(s.replace("_", " ") for s in STATES) + " |"
    lines = [head, "| " + " | ".join(["---"] * (3 + len(STATES))) + " |"]
    for s in summaries:
        for mode in ("forward", "train", "any"):
            if mode in s.by_mode:
                counts = s.by_mode[mode]
                lines.append(f"| {s.target} | {mode} | {sum(counts.values())} | " + " | ".join(str(counts[k]) for k in STATES) + " |")
    return "\n".join(lines)
