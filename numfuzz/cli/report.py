"""`numfuzz report`: the corpus as one static HTML page, with an error plot per finding group."""

from __future__ import annotations

from pathlib import Path

import click

from numfuzz.cli.failure import fail
from numfuzz.cli.options import bounds_option, device_option, import_option
from numfuzz.cli.setup import bounds_in_environment, import_user_code

CORPUS_FOLDERS = ("findings", "minimized", "errors", "campaign")  # a report never writes inside these


@click.command()
@click.argument("directory", metavar="CORPUS", type=click.Path(path_type=Path))
@click.option("-o", "--out", "out_dir", type=click.Path(path_type=Path), default=None, help="Folder for index.html and repro/ (default: CORPUS/report).")
@click.option("--sweep/--no-sweep", default=True, show_default=True, help="Run each finding over scaled inputs for its error plot.")
@device_option
@import_option
@bounds_option
def report(directory: Path, out_dir: Path | None, sweep: bool, device: str | None, imports: tuple[str, ...], bounds_files: tuple[Path, ...]) -> None:
    """Write a static HTML report of CORPUS: campaign summary, one section per finding group, crashes."""
    if not directory.is_dir():
        fail(f"{directory}: no such folder")
    out_dir = out_dir if out_dir is not None else directory / "report"
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"{out_dir}: exists and is not a folder")
    inside = next((name for name in CORPUS_FOLDERS if out_dir.resolve().is_relative_to((directory / name).resolve())), None)
    if inside is not None:
        fail(f"{out_dir}: inside the corpus's {inside}/ folder; a report never writes there")
    for spec in imports:
        import_user_code(spec)
    from numfuzz.environment import default_device
    from numfuzz.report.build import build_report

    absolute = [str(Path(s).resolve()) if s.endswith(".py") or Path(s).exists() else s for s in imports]
    try:
        with bounds_in_environment(bounds_files):  # the groups are listed, and the repros judged, by these bounds
            result = build_report(directory, out_dir, device or default_device(), absolute, sweep)
    except OSError as exc:
        fail(f"cannot write the report: {exc}")
    for problem in result.skipped:
        click.echo(f"numfuzz: skipped {problem}", err=True)
    data = result.data
    plotted = sum(1 for g in data.findings if g.plot_svg)
    click.echo(f"{len(data.findings)} finding groups ({plotted} plotted), {len(data.crashes)} crash groups, {len(result.skipped)} files skipped")
    click.echo(f"report: {result.page}")
