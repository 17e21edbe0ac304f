"""`numfuzz merge`: corpora from sharded runs merged into one, deduplicated by content hash."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from numfuzz.cli.failure import fail


@click.command()
@click.argument("sources", metavar="DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="The merged corpus (created, or added to).")
def merge(sources: tuple[Path, ...], out: Path) -> None:
    """Merge corpora (such as the shards of `fuzz --shard K/N`) into OUT.

    Files are named by content hash: one already in OUT is kept. A conflict (same name, other
    bytes) or a corrupt file is reported and skipped, and the exit status is 1; everything else
    is merged. Running the same merge again changes nothing.
    """
    from numfuzz.campaign.merge import MergeError, merge_corpora

    try:
        report = merge_corpora(list(sources), out)
    except MergeError as exc:
        fail(str(exc))
    for line in report.corrupt:
        click.echo(f"numfuzz: skipped {line}", err=True)
    for line in report.conflicts:
        click.echo(f"numfuzz: conflict: {line}", err=True)
    click.echo(
        f"merged {len(sources)} corpora into {out}: {len(report.copied)} files copied, {report.unchanged} already there, "
        f"{len(report.conflicts)} conflicts, {len(report.corrupt)} corrupt"
    )
    if report.same_case:
        click.echo(f"{len(report.same_case)} minimised cases were reached from findings of more than one shard; one file of each kept")
    if report.campaigns:
        stats = report.stats
        click.echo(
            f"campaigns: {len(report.campaigns)} ({report.graphs_done} graphs, {stats.cases} cases, {stats.findings} findings, "
            f"{stats.errors} numfuzz errors, {stats.minimized} minimised); summed in {out / 'merge_stats.json'}"
        )
    if report.groups:
        width = max(len(g.signature.text()) for g in report.groups)
        click.echo(f"{'count':>5}  {'signature (target | symptom | op | dtype)':<{width}}  smallest case")
        for group in report.groups:
            note = "  (not minimised)" if group in report.unminimized else ""
            click.echo(f"{group.count:>5}  {group.signature.text():<{width}}  {group.smallest}{note}")
        click.echo(f"{sum(g.count for g in report.groups)} findings, {len(report.groups)} signatures")
    if report.unminimized:
        click.echo(f"{len(report.unminimized)} signatures have no minimised case: `numfuzz minimize CASE -o {out / 'minimized'}` makes one")
    if not report.clean:
        sys.exit(1)
