"""The committed corpus as a regression suite: each finding states where it reproduces, and a replay checks it.

A case may carry `extra["reproduces"]`:

    {"torch": ">=2.9,<2.14.1", "device": "cpu", "isa": ["AVX512", "AVX2"], "why": "..."}

meaning: on a torch in that range and that device the case is a finding (its recorded verdict),
and elsewhere it is not. `isa` lists the vector ISAs on which that was checked (Inductor's CPU
code depends on it): on another ISA the statement says nothing. Keys left out do not restrict.
`numfuzz corpus DIR --replay` and the tests check the statement on the installed versions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from numfuzz.corpus.case import Case, CaseError

KEYS = ("torch", "thunder", "device", "isa", "why")


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
    return Statement(
        str(data.get("torch", "")), str(data.get("thunder", "")), str(data.get("device", "")), tuple(str(x) for x in isa), str(data.get("why", ""))
    )
