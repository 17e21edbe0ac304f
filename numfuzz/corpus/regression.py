"""The committed corpus as a regression suite: each case states where it reproduces, and a replay checks it.

A case may carry `extra["reproduces"]`:

    {"torch": ">=2.9,<2.14.1", "device": "cpu", "isa": ["AVX512", "AVX2"], "why": "..."}

meaning: on a torch in that range and that device the case gets its recorded verdict, and
elsewhere it does not. For a finding (or a case not yet run, with no recorded result) that is:
a finding there, no finding elsewhere. A case recorded as no finding (an upstream report that
numfuzz judges `more_accurate`, say) must get exactly that verdict there. `isa` lists the vector
ISAs on which that was checked (Inductor's CPU code depends on it): on another ISA the statement
says nothing. Keys left out do not restrict. `numfuzz corpus DIR --replay` and the tests check
the statement on the installed versions; a case for another device is skipped.

A case written from an upstream report also carries `extra["upstream"]`:
`{"issue": "pytorch#183605", "title": "...", "url": "https://..."}` (`issue` required).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from numfuzz.corpus.case import Case, CaseError
from numfuzz.judge.verdicts import Verdict

KEYS = ("torch", "thunder", "device", "isa", "why")
UPSTREAM_KEYS = ("issue", "title", "url")
_ISSUE = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)?#[0-9]+")


@dataclass(frozen=True)
class Statement:
    torch: str = ""
    thunder: str = ""
    device: str = ""
    isa: tuple[str, ...] = ()
    why: str = ""

    def holds_here(self, here: dict[str, Any]) -> bool | None:
        """Does the case reproduce in the environment `here` (as `numfuzz.environment.provenance` gives it)? None: unknown there."""
        if self.device and not str(here.get("device", "")).startswith(self.device):
            return False
        if self.isa and str(here.get("isa", "")) not in self.isa:
            return None
        return all(_satisfies(here.get(name), spec) for name, spec in (("torch", self.torch), ("thunder", self.thunder)))

    def text(self) -> str:
        parts = [f"torch {self.torch}" if self.torch else "", f"thunder {self.thunder}" if self.thunder else "", self.device, "/".join(self.isa)]
        return ", ".join(p for p in parts if p) or "everywhere"


def _satisfies(version: Any, spec: str) -> bool:
    if not spec:
        return True
    try:
        return Version(str(version)) in SpecifierSet(spec, prereleases=True)
    except InvalidVersion:
        return False


def statement(case: Case) -> Statement | None:
    """The case's statement of where it reproduces; None when it makes none. CaseError when malformed."""
    data = case.extra.get("reproduces")
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) - set(KEYS):
        raise CaseError(f"'reproduces' must be an object with keys among {', '.join(KEYS)}")
    try:
        for name in ("torch", "thunder"):
            SpecifierSet(str(data.get(name, "")))
    except InvalidSpecifier as exc:
        raise CaseError(f"'reproduces': {exc}") from None
    isa = data.get("isa", [])
    if not isinstance(isa, list) or not all(isinstance(x, str) for x in isa):
        raise CaseError("'reproduces': 'isa' must be a list of ISA names")
    if not all(isinstance(data.get(k, ""), str) for k in ("torch", "thunder", "device", "why")):
        raise CaseError("'reproduces': torch, thunder, device and why must be strings")
    return Statement(data.get("torch", ""), data.get("thunder", ""), data.get("device", ""), tuple(isa), data.get("why", ""))


def reproduces(recorded: Verdict | None, now: Verdict) -> bool:
    """Does the verdict here reproduce the recorded one? A finding (or a case never run): any finding; otherwise the same verdict."""
    if recorded is None or recorded.is_finding:
        return now.is_finding
    return now is recorded


@dataclass(frozen=True)
class Upstream:
    issue: str  # "pytorch#183605"
    title: str = ""
    url: str = ""


def upstream(case: Case) -> Upstream | None:
    """The upstream report a case was written from; None when it names none. CaseError when malformed."""
    data = case.extra.get("upstream")
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) - set(UPSTREAM_KEYS) or not all(isinstance(v, str) for v in data.values()):
        raise CaseError(f"'upstream' must be an object of strings with keys among {', '.join(UPSTREAM_KEYS)}")
    issue = data.get("issue", "")
    if not _ISSUE.fullmatch(issue):
        raise CaseError(f"'upstream': issue {issue!r} is not of the form project#number (pytorch#183605)")
    url = data.get("url", "")
    if url and not url.startswith("https://"):
        raise CaseError(f"'upstream': url {url!r} is not an https address")
    return Upstream(issue, data.get("title", ""), url)
