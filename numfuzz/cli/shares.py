"""`numfuzz fuzz`'s share options, one per row of the shares table (`numfuzz.share_table`)."""

from __future__ import annotations

from typing import Callable

import click

from numfuzz.share_table import SHARES


def share_options(command: Callable) -> Callable:
    """The share options, in the order of SHARES in `--help`."""
    for share in reversed(SHARES):
        command = click.option(share.flag, type=click.FloatRange(0, 1), default=share.default, show_default=True, help=share.help)(command)
    return command
