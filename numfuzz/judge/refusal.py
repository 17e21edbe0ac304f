"""A target's own refusal: it says that it does not support an op, an argument or a mode. A status, not a bug.

A maintainer reads `NotImplementedError: {ceil_mode=} is not supported` as a gap the compiler knows
of, not as a crash to fix. What makes an error a refusal is where it is raised and what it says,
never which op numfuzz drew:

* where -- the frame that raised it is in the target's own code (`own_code`: the packages a target
  names, `thunder` for Thunder's targets, `torch._inductor` for Inductor's), for the error or for one
  it was raised from (Dynamo wraps a backend's error in another);
* what  -- a `NotImplementedError`, or a message that says "not supported", "does not support",
  "not yet implemented" or "only ... supported".

A `TypeError` for a documented keyword, an `AttributeError` or an assertion raised there stays a
crash, as does a refusal's wording raised by torch underneath the target (a kernel with no bf16
version is torch's, not the compiler's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

# what a refusal says; matched on the message's first line
_REFUSES = re.compile(
    r"not (yet |currently )?supported|\bunsupported\b|(does|do|can)( not|n't|not) (yet )?support|not (yet )?implemented|\bonly\b.{1,120}\b(is|are) (currently )?supported",
    re.IGNORECASE,
)
# an argument a refusal names: `ceil_mode=`, or a quoted name
_NAMED = re.compile(r"\b([a-z_][a-z0-9_]*)=|'([a-z_][a-z0-9_]*)'")


@dataclass(frozen=True)
class Refusal:
    message: str  # the refusing error's first line: `NotImplementedError: {ceil_mode=} is not supported`
    raised_in: str  # the module whose code raised it: `thunder.core.baseutils`

    def detail(self) -> str:
        """The outcome's detail: the message (what a fingerprint keys on), then where it was raised."""
        return f"{self.message}\nraised in {self.raised_in}"


def own_code(target: Any) -> tuple[str, ...]:
    """The packages whose code is the target's own (a wrapper's inner target's); () where it names none."""
    while target is not None:
        own = getattr(target, "own_code", None)
        if own is not None:
            return tuple(own)
        target = getattr(target, "inner", None)
    return ()


def says_unsupported(message: str) -> bool:
    """Does an error's first line say that something is not supported?"""
    return bool(_REFUSES.search(message))


def refusal_of(exc: BaseException, own: tuple[str, ...]) -> Refusal | None:
    """The refusal `exc` is, or one it was raised from, where raised in `own` code and saying so; None: a crash."""
    if not own:
        return None
    for error in _chain(exc):
        module = _raised_in(error)
        if not any(module == p or module.startswith(p + ".") for p in own):
            continue
        message = first_line(error)
        if isinstance(error, NotImplementedError) or says_unsupported(message):
            return Refusal(message, module)
    return None


def first_line(exc: BaseException) -> str:
    lines = [line for line in f"{type(exc).__name__}: {exc}".splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


def argument_named(message: str, attrs: dict[str, Any]) -> str:
    """The argument a refusal names, as `name=value` of the node's attributes: by its name in the message, else by its
    value (`mode='bicubic'` says it by both); a name the node does not have, as the message says it; "" for none."""
    named = [a or b for a, b in _NAMED.findall(message)]
    for name in named:
        if name in attrs:
            return f"{name}={attrs[name]!r}"
    for name, value in attrs.items():
        if isinstance(value, str) and re.search(rf"\b{re.escape(value)}\b", message):
            return f"{name}={value!r}"
    for name in attrs:
        if re.search(rf"\b{re.escape(name)}\b", message, re.IGNORECASE):  # `Mode arguments other than constant ...`
            return f"{name}={attrs[name]!r}"
    return named[0] if named else ""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The error, then those it was raised from or wraps (Dynamo's BackendCompilerFailed keeps the backend's error)."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        error = todo.pop(0)
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        todo += [getattr(error, "inner_exception", None), error.__cause__, error.__context__]


def _raised_in(exc: BaseException) -> str:
    """The module of the innermost frame of the error's traceback: the code that raised it."""
    tb = exc.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", ""))
