"""A corpus's refusals as a coverage list: per target, op and argument, what the target says and where it still says it.

A refusal group (`Group.unsupported`, `judge.refusal`) is the target's own statement that it does not
support an op, an argument or a mode. A maintainer reads the list as the gaps of a compiler's op
coverage, found by programs users could write: the op (the node that draws it alone, `judge.refusing_op`,
or the one op of a minimised case),
the argument its message names, the message, and the versions where it still refuses: the case's
own, and each newest interpreter's answer where one was asked (`newest.confirmation`, which `numfuzz corpus` hands in).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from numfuzz.corpus.grouping import Group
from numfuzz.corpus.store import load_case
from numfuzz.judge.refusal import argument_named


@dataclass(frozen=True)
class RefusalRow:
    target: str
    op: str
    argument: str  # `ceil_mode=True`, or "" where the message names none
    message: str
    refuses_on: tuple[str, ...]  # versions where it refuses: the case's own first, then the newest that still do
    supported_on: tuple[str, ...]  # newest interpreters where it no longer refuses
    count: int
    smallest: str

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "op": self.op,
            "argument": self.argument,
            "message": self.message,
            "refuses_on": list(self.refuses_on),
            "supported_on": list(self.supported_on),
            "count": self.count,
            "smallest": self.smallest,
        }


Newest = dict[str, tuple[list[str], list[str]]]  # group title -> (newest interpreters that still refuse, those that do not)


def refusal_rows(groups: list[Group], newest: Newest | None = None) -> list[RefusalRow]:
    """One row per refusal group, by target, op and argument; `newest`: what the newest interpreters said, by title."""
    rows = []
    for group in groups:
        if not group.unsupported or group.smallest is None:
            continue
        op, argument, message, own = _smallest(group)
        still, not_now = (newest or {}).get(group.title, ([], []))
        rows.append(RefusalRow(group.signature.target, op, argument, message, (own, *still), tuple(not_now), group.count, str(group.smallest)))
    return sorted(rows, key=lambda r: (r.target, r.op, r.argument, r.message))


def _smallest(group: Group) -> tuple[str, str, str, str]:
    """(op, argument, message, the versions it was found on) from the group's smallest case."""
    case = load_case(group.smallest)
    detail = str((case.result or {}).get("detail", ""))
    message = detail.splitlines()[0] if detail.strip() else group.signature.fingerprint
    culprit = group.analysis.culprit if group.analysis is not None else None  # the op that draws it alone (`judge.refusing_op`)
    if culprit is not None and 0 <= culprit.node < len(case.graph.nodes):
        node = case.graph.nodes[culprit.node]
    else:  # a minimised case's one op, or none known
        node = case.graph.nodes[0] if len(case.graph.nodes) == 1 else None
    op = node.op if node is not None else "+".join(sorted(group.ops)) or "?"
    argument = argument_named(message, call_arguments(node.attr_dict) if node is not None else {})
    return op, argument, message, found_on(case.target, case.provenance)


_PLACEHOLDER = re.compile(r"\{(\d+)\}")


def call_arguments(attrs: dict[str, Any]) -> dict[str, Any]:
    """A node's arguments by name: its attributes, and for a database op the keyword arguments its call form spells out
    (`mode='bicubic'` of `interpolate({0}, (3, 3), mode='bicubic')`) in place of the form and sample number themselves."""
    form = attrs.get("form")
    if not isinstance(form, str):
        return dict(attrs)
    named = {k: v for k, v in attrs.items() if k not in ("form", "sample")}
    try:
        call = ast.parse(_PLACEHOLDER.sub(r"_\1", form), mode="eval").body
    except SyntaxError:
        return named
    for keyword in call.keywords if isinstance(call, ast.Call) else []:
        try:
            named[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError):  # a value that is not a literal (a tensor, a function)
            continue
    return named


def found_on(target: str, provenance: dict[str, Any]) -> str:
    """The versions a case was found on, as the list says them: Thunder's (with its torch) for a Thunder target."""
    torch = provenance.get("torch", "?")
    thunder = provenance.get("thunder", "")
    return f"thunder {thunder} (torch {torch})" if target.startswith("thunder") and thunder not in ("", "absent") else f"torch {torch}"
