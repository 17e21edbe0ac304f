"""`numfuzz corpus`: findings grouped by signature."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from numfuzz.cli.common import (
    fail,
)


def _severity_text(value: float | None) -> str:
    if value is None:
        return "-"
    return "inf" if math.isinf(value) else f"{value:.1f}"


@click.command("corpus")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the groups as JSON.")
def corpus(directory: Path, as_json: bool) -> None:
    """List the findings under DIRECTORY grouped by signature: count, severity (bits lost), smallest case."""
    if not directory.is_dir():
        fail(f"{directory}: no such folder")
    from numfuzz.corpus.grouping import group_corpus

    groups, problems = group_corpus(directory)
    for problem in problems:
        click.echo(f"numfuzz: skipped {problem}", err=True)
    if as_json:
        rows = [
            {"signature": g.signature.to_json(), "count": g.count, "bits_lost": None if g.severity is None or math.isinf(g.severity) else g.severity,
             "nonfinite": g.severity is not None and math.isinf(g.severity), "smallest": str(g.smallest)}
            for g in groups
        ]  # fmt: skip
        click.echo(json.dumps(rows, indent=1))
        return
    if not groups:
        click.echo(f"no findings under {directory}")
        return
    width = max(len(g.signature.text()) for g in groups)
    click.echo(f"{'count':>5}  {'bits lost':>9}  {'signature (target | symptom | op | dtype)':<{width}}  smallest case")
    for g in groups:
        click.echo(f"{g.count:>5}  {_severity_text(g.severity):>9}  {g.signature.text():<{width}}  {g.smallest}")
    click.echo(f"{sum(g.count for g in groups)} findings, {len(groups)} signatures")
