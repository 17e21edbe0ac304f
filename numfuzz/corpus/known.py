"""Known upstream issues: a data file of match rules, so that a finding already filed is marked, not reported as new.

numfuzz ships `numfuzz/data/known_issues.toml`; users add their own files in the same form
(`--known FILE`). The file's header says what each rule means. A malformed file is a
KnownIssuesError whose message is one line naming the file and the entry.
"""

from __future__ import annotations

import tomllib
from difflib import get_close_matches
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from numfuzz.judge.signature import Signature
from numfuzz.program.ops import OPS

BUILTIN = "known_issues.toml"
_TEXT = ("id", "title", "status", "torch", "thunder", "device", "fixed_in", "kind")
_LISTS = ("links", "targets", "not_targets", "modes", "not_modes", "causes", "symptoms", "ops", "upstream_ops", "dtypes", "mechanisms", "messages")
_OP_LISTS = ("ops", "upstream_ops")  # names of the op table's ops: a typo would match nothing, so it is refused
KINDS = ("bug", "limitation")  # a limitation: a feature the release does not have (an op it cannot compile), no bug


class KnownIssuesError(ValueError):
    """A known-issues file that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class KnownIssue:
    id: str
    title: str
    status: str
    links: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    not_targets: tuple[str, ...] = ()
    # glob patterns over how the case compiled and ran (`Signature.mode`: "autocast=bf16", a run's options)
    modes: tuple[str, ...] = ()
    not_modes: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    symptoms: tuple[str, ...] = ()  # the finding's symptom (nonfinite, less_accurate, a crash kind)
    ops: tuple[str, ...] = ()
    # one of these is the culprit or an op it depends on: a compiled backward that recomputes an
    # earlier op's forward inherits that op's error, where the finding names the culprit's backward
    upstream_ops: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()  # a mechanism's name (numfuzz.judge.mechanism), whatever its culprit op or message
    torch: str = ""
    thunder: str = ""
    device: str = ""
    messages: tuple[str, ...] = ()  # glob patterns over a crash's fingerprint (numfuzz.judge.crash)
    fixed_in: str = ""  # the torch release or PR that fixed it upstream
    kind: str = ""  # "limitation" for a missing feature; else a bug
    source: str = field(default="", compare=False)

    @property
    def link(self) -> str:
        return self.links[0] if self.links else ""

    def matches(self, signature: Signature, provenance: dict[str, Any], mechanism: str = "", upstream: frozenset[str] = frozenset()) -> bool:
        """Does a finding with this signature (and mechanism, and `upstream`: the ops of its culprit's cone), found with these versions and device, fall under this issue?"""
        if self.mechanisms and mechanism not in self.mechanisms:
            return False
        if self.targets and not any(fnmatchcase(signature.target, p) for p in self.targets):
            return False
        if any(fnmatchcase(signature.target, p) for p in self.not_targets):
            return False
        if self.modes and not any(fnmatchcase(signature.mode, p) for p in self.modes):
            return False
        if any(fnmatchcase(signature.mode, p) for p in self.not_modes):
            return False
        if self.causes and signature.cause not in self.causes:
            return False
        if self.symptoms and signature.symptom not in self.symptoms:
            return False
        if self.ops and not _with_counterparts(_located_at(signature, upstream) if self.symptoms else signature.ops) & set(self.ops):
            return False
        if self.upstream_ops and not _with_counterparts(upstream) & set(self.upstream_ops):
            return False
        if self.dtypes and signature.dtype not in self.dtypes:
            return False
        if self.messages and not any(fnmatchcase(signature.fingerprint, p) for p in self.messages):
            return False
        if self.device and not str(provenance.get("device", "")).startswith(self.device):
            return False
        return _version_in(provenance.get("torch"), self.torch) and _version_in(provenance.get("thunder"), self.thunder)


def _located_at(signature: Signature, upstream: frozenset[str]) -> tuple[str, ...] | frozenset[str]:
    """The ops a finding is at: its signature's, or for a finding that names no op the ops of its program (`upstream`):
    a lost worker's or a crash's not yet minimised (the candidates, `group_key.unlocated_candidates`), a model's crash (the ops the model
    calls, `model.coverage.called_ops`). Only a rule that names the symptom reads them: an op rule of another symptom
    keeps to a located culprit."""
    return upstream if not signature.ops else signature.ops


def _with_counterparts(ops) -> set[str]:
    """The ops, and each database op's hand-written counterpart (`OpSpec.counterpart`): `db.std` is `std`'s kin."""
    return set(ops) | {OPS[op].counterpart for op in ops if op in OPS and OPS[op].counterpart}


def _version_in(version: Any, spec: str) -> bool:
    if not spec:
        return True
    try:
        return Version(str(version)) in SpecifierSet(spec, prereleases=True)
    except InvalidVersion:  # unknown or absent: a versioned rule cannot claim the finding
        return False


def _entry(data: Any, where: str) -> KnownIssue:
    if not isinstance(data, dict):
        raise KnownIssuesError(f"{where}: an [[issue]] must be a table")
    unknown = sorted(set(data) - set(_TEXT) - set(_LISTS))
    if unknown:
        raise KnownIssuesError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_TEXT + _LISTS)}")
    for key in ("id", "title", "status"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise KnownIssuesError(f"{where}: '{key}' must be a non-empty string")
    values: dict[str, Any] = {}
    for key in _TEXT:
        if key in data and not isinstance(data[key], str):
            raise KnownIssuesError(f"{where}: '{key}' must be a string")
        values[key] = data.get(key, "")
    for key in _LISTS:
        items = data.get(key, [])
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise KnownIssuesError(f"{where}: '{key}' must be a list of strings")
        values[key] = tuple(items)
    for key in _OP_LISTS:
        for op in values[key]:
            if op not in OPS:
                near = get_close_matches(op, OPS, n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else " (`numfuzz ops` lists them)"
                raise KnownIssuesError(f"{where} ({values['id']}): '{key}' names {op!r}, which is no op of the table{hint}")
    if values["kind"] and values["kind"] not in KINDS:
        raise KnownIssuesError(f"{where}: 'kind' must be one of {', '.join(KINDS)}, not {values['kind']!r}")
    for key in ("torch", "thunder"):
        try:
            SpecifierSet(values[key])
        except InvalidSpecifier:
            raise KnownIssuesError(f"{where}: '{key}' is not a version specifier: {values[key]!r}") from None
    return KnownIssue(**values, source=where)


def parse_known(text: str, name: str) -> list[KnownIssue]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise KnownIssuesError(f"{name}: not valid TOML: {exc}") from None
    entries = data.get("issue", [])
    if set(data) - {"issue"} or not isinstance(entries, list):
        raise KnownIssuesError(f"{name}: expected only [[issue]] tables")
    issues = [_entry(entry, f"{name}: issue {i + 1}") for i, entry in enumerate(entries)]
    ids = [issue.id for issue in issues]
    if len(ids) != len(set(ids)):
        raise KnownIssuesError(f"{name}: issue ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
    return issues


def load_known(extra: Sequence[Path | str] = (), builtin: bool = True) -> list[KnownIssue]:
    """The shipped known issues, then each user file's (a user entry with a shipped id replaces it)."""
    issues: dict[str, KnownIssue] = {}
    if builtin:
        text = resources.files("numfuzz.data").joinpath(BUILTIN).read_text()
        issues.update({i.id: i for i in parse_known(text, f"numfuzz/data/{BUILTIN}")})
    for path in extra:
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise KnownIssuesError(f"{path}: cannot read: {exc}") from None
        issues.update({i.id: i for i in parse_known(text, str(path))})
    return list(issues.values())


def match_known(
    issues: Sequence[KnownIssue], signature: Signature, provenance: dict[str, Any], mechanism: str = "", upstream: frozenset[str] = frozenset()
) -> KnownIssue | None:
    return next((issue for issue in issues if issue.matches(signature, provenance, mechanism, upstream)), None)
