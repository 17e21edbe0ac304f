"""The click options and arguments that several commands share."""

from __future__ import annotations

from pathlib import Path

import click

device_option = click.option("--device", default=None, help="Where targets run (default: cuda when present, else cpu).")


import_option = click.option(
    "--import", "imports", multiple=True, metavar="MODULE_OR_FILE", help="Import user code first (may register targets or Thunder executors)."
)


isolated_option = click.option(
    "--isolated", is_flag=True, help="Run the target in a separate worker process (automatic for findings that killed theirs: segfault, abort, timeout, oom)."
)


case_argument = click.argument("case_path", metavar="CASE", type=click.Path(path_type=Path))


target_option = click.option("--target", "target_spec", default=None, help="Override the case's target.")


known_option = click.option(
    "--known",
    "known_files",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="A known-issues file (TOML, as numfuzz/data/known_issues.toml) whose matches are marked known, not new.",
)


bounds_option = click.option(
    "--bounds",
    "bounds_files",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="An error-bounds file (TOML, as numfuzz/data/error_bounds.toml) whose entries replace the shipped ones for the same ops.",
)


newest_option = click.option(
    "--newest",
    "newest",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="PYTHON",
    help="An interpreter with the newest torch or Thunder (a venv's bin/python) to confirm new groups on; default: $NUMFUZZ_NEWEST's paths.",
)


no_confirm_option = click.option("--no-confirm", is_flag=True, help="Do not confirm new groups on the newest interpreters, even where they are configured.")
