"""How the CLI fails: one line on stderr, never a traceback; exit 2 on bad input, 3 on numfuzz's own failure."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

EXIT_BAD_INPUT = 2
EXIT_NUMFUZZ_ERROR = 3


def fail(message: str) -> NoReturn:
    click.echo(f"numfuzz: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def numfuzz_failed(what: str, exc: Exception) -> NoReturn:
    """numfuzz itself failed on good input: one line naming the failure as numfuzz's, not the input's."""
    lines = str(exc).strip().splitlines()
    click.echo(f"numfuzz: internal error {what}: {type(exc).__name__}: {lines[0] if lines else ''} (a numfuzz bug, not a finding)", err=True)
    sys.exit(EXIT_NUMFUZZ_ERROR)
