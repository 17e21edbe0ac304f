"""How the CLI fails: one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

EXIT_BAD_INPUT = 2


def fail(message: str) -> NoReturn:
    click.echo(f"numfuzz: error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)
