"""The registry of target families: a spec such as `thunder:torch,torchcompile` names a family and its argument."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from numfuzz.targets.protocol import Target, TargetError


@dataclass(frozen=True)
class Family:
    prefix: str
    factory: Callable[[str | None], Target]
    summary: str
    examples: tuple[str, ...]
    # What a campaign may draw for its cases (numfuzz.corpus.make): the size modes its targets
    # compile (run_spec.DYNAMIC_MODES), and its section of the compiler configuration space ("": none).
    modes: tuple[str, ...] = ("static",)
    config_space: str = ""


_FAMILIES: dict[str, Family] = {}


def register(
    prefix: str,
    factory: Callable[[str | None], Target],
    summary: str,
    examples: tuple[str, ...] = (),
    modes: tuple[str, ...] = ("static",),
    config_space: str = "",
) -> None:
    """Register a target family; `factory(arg)` gets the text after `prefix:` or None.

    A family whose targets compile symbolic sizes or drawn options lists its `modes` and names its
    `config_space`; its targets then have `configured(run)` (numfuzz.targets.compile_modes)."""
    _FAMILIES[prefix] = Family(prefix, factory, summary, examples or (prefix,), tuple(modes), config_space)


def family_of(spec: str) -> Family | None:
    """The family a target spec names, or None."""
    return _FAMILIES.get(spec.partition(":")[0])


def families() -> list[Family]:
    return list(_FAMILIES.values())


def resolve(spec: str) -> Target:
    prefix, _, arg = spec.partition(":")
    family = _FAMILIES.get(prefix)
    if family is None:
        raise TargetError(f"unknown target {spec!r}; known families: {', '.join(sorted(_FAMILIES))}")
    return family.factory(arg or None)
