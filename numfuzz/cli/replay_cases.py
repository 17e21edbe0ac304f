"""`numfuzz replay-cases` (hidden): case files replayed here, one JSON line each; what a newest interpreter answers."""

from __future__ import annotations

import json
from pathlib import Path

import click

from numfuzz.cli.options import bounds_option, device_option, import_option
from numfuzz.cli.setup import bounds_in_environment, import_user_code


@click.command("replay-cases", hidden=True)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--through-compiler", "through", is_flag=True, help="Run each case through the compiler behind its target.")
@import_option
@bounds_option
@device_option
def replay_cases(paths: tuple[Path, ...], through: bool, imports: tuple[str, ...], bounds_files: tuple[Path, ...], device: str | None) -> None:
    """Replay each case here; print this interpreter's versions, then one JSON object per case (numfuzz.newest.replay_here)."""
    for spec in imports:
        import_user_code(spec)
    from numfuzz.environment import default_device, provenance
    from numfuzz.newest.replay_here import replay_here

    device = device or default_device()
    click.echo(json.dumps({"here": provenance(device)}))
    with bounds_in_environment(bounds_files):
        for path in paths:
            click.echo(json.dumps(replay_here(path, through, device).to_json()))
