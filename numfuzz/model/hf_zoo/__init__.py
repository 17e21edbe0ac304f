"""The zoo built from transformers itself: every model type whose configuration builds a small model on CPU (`build`),
the table of those that do and why the rest do not (`catalog`), and what makes Thunder's jit take them (`plain`)."""

from __future__ import annotations


class ZooBuildError(Exception):
    """Why a model type is not built small: one line, the table's reason."""


def line(exc: BaseException, limit: int = 160) -> str:
    """An exception as the table's reason: its type and the start of its message, on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:limit]}"
