"""The target protocol and registry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol


class TargetError(ValueError):
    """An unknown or malformed target spec."""


class Target(Protocol):
    name: str  # the spec it was resolved from

    def available(self) -> tuple[bool, str]:
        """Whether it can run here, and why not."""

    def prepare(self, fn: Callable, device: str) -> Callable:
        """Wrap `fn`; compiling may happen on the first call."""

    def final_trace(self, compiled: Callable) -> str | None:
        """The final execution trace of the last call, when the target has one."""

    def reset(self) -> None:
        """Drop compile caches between cases, so memory stays flat."""


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
    _load_builtins()
    return list(_FAMILIES.values())


def resolve(spec: str) -> Target:
    _load_builtins()
    prefix, _, arg = spec.partition(":")
    family = _FAMILIES.get(prefix)
    if family is None:
        raise TargetError(f"unknown target {spec!r}; known families: {', '.join(sorted(_FAMILIES))}")
    return family.factory(arg or None)


def _load_builtins() -> None:
    import numfuzz.targets.builtin  # noqa: F401  (registers on import)
