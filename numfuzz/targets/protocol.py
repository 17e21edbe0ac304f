"""The target protocol: what every compiler family provides, and its error."""

from __future__ import annotations

from typing import Callable, Protocol


class TargetError(ValueError):
    """An unknown or malformed target spec."""


class Target(Protocol):
    """A way to compile a program. Implementations are small objects, one module per compiler family."""

    name: str  # the spec it was resolved from
    # Optional: `compiler_behind`, the target spec of the compiler that generates this target's code ("inductor" for a
    # front end that hands its fusions to Inductor); a confirmation on a newer torch runs a case through it where the
    # front end cannot run (numfuzz.newest.replay_here).
    # Optional: `own_code`, the packages whose code is the target's own: an error raised there that says it does not
    # support an op or argument is the verdict `unsupported`, not a crash (numfuzz.judge.refusal).

    def available(self) -> tuple[bool, str]:
        """Whether it can run here, and why not."""

    def prepare(self, fn: Callable, device: str) -> Callable:
        """Wrap `fn`; compiling may happen on the first call."""

    def final_trace(self, compiled: Callable) -> str | None:
        """The final execution trace of the last call, when the target has one."""

    def reset(self) -> None:
        """Drop compile caches between cases, so memory stays flat."""

    def repro_source(self) -> tuple[list[str], str]:
        """For standalone repro scripts: (import lines, an expression that compiles `fn` as `prepare` does)."""

    def repro_guard(self) -> str:
        """Script lines run before compiling, that fail clearly when the target cannot exist there ("" for none)."""

    def min_elements(self, dtype: str, device: str) -> int:
        """The fewest output elements that keep the code path a finding was seen on (a vectorised loop): minimisation stops there."""
