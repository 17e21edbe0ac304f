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


_FAMILIES: dict[str, Family] = {}


def register(prefix: str, factory: Callable[[str | None], Target], summary: str, examples: tuple[str, ...] = ()) -> None:
    """Register a target family; `factory(arg)` gets the text after `prefix:` or None."""
    _FAMILIES[prefix] = Family(prefix, factory, summary, examples or (prefix,))


def families() -> list[Family]:
    return list(_FAMILIES.values())


def resolve(spec: str) -> Target:
    prefix, _, arg = spec.partition(":")
    family = _FAMILIES.get(prefix)
    if family is None:
        raise TargetError(f"unknown target {spec!r}; known families: {', '.join(sorted(_FAMILIES))}")
    return family.factory(arg or None)
