"""Command line: thin subcommands over the library, one module per command. The only place that exits the process."""

from __future__ import annotations

import click

from numfuzz.cli.corpus import corpus
from numfuzz.cli.fuzz import fuzz
from numfuzz.cli.merge import merge
from numfuzz.cli.minimize import minimize
from numfuzz.cli.model import model
from numfuzz.cli.models import models
from numfuzz.cli.ops import ops
from numfuzz.cli.replay import replay
from numfuzz.cli.replay_cases import replay_cases
from numfuzz.cli.report import report
from numfuzz.cli.repro import repro
from numfuzz.cli.setup import quiet_libraries
from numfuzz.cli.targets import targets


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Debug logging on stderr.")
@click.version_option(package_name="numfuzz")
def main(verbose: bool) -> None:
    """numfuzz: is the compiled result further from the float64 truth than eager is?"""
    quiet_libraries(verbose)


for _command in (targets, ops, fuzz, model, models, replay, minimize, repro, corpus, report, merge, replay_cases):
    main.add_command(_command)
