"""`numfuzz models`: the zoo's architectures and a user's models swept across targets, precisions, forward and training, and lengths."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from numfuzz.cli.failure import fail
from numfuzz.cli.options import device_option, import_option
from numfuzz.cli.setup import import_user_code
from numfuzz.sweep.grid import DEFAULT_POSITIONS, DEFAULT_PRECISIONS, DEFAULT_TARGETS, MODES, PRECISIONS


@click.command()
@click.argument("entries", nargs=-1)
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None, help="The sweep's folder: results, explanations, cases, page.")
@click.option("--target", "targets", multiple=True, help=f"A target (repeatable). Default: {', '.join(DEFAULT_TARGETS)} (those available here).")
@click.option("--precision", "precisions", multiple=True, type=click.Choice(list(PRECISIONS)), help=f"Repeatable. Default: {', '.join(DEFAULT_PRECISIONS)}.")
@click.option("--mode", "modes", multiple=True, type=click.Choice(list(MODES)), help="forward, train (repeatable). Default: both.")
@click.option(
    "--positions",
    "positions",
    multiple=True,
    type=click.IntRange(min=1),
    help=f"Sequence lengths (repeatable). Default: {', '.join(map(str, DEFAULT_POSITIONS))}.",
)
@click.option("--budget", type=click.FloatRange(min=0), default=None, help="Minutes: no cell starts after them (cells under way finish).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes judging cells side by side.")
@click.option("--ray", "ray_address", default=None, help="Judge each cell as a Ray task on this cluster (auto, an address, or local).")
@click.option("--cell-timeout", type=click.FloatRange(min=1), default=600.0, show_default=True, help="Seconds a cell may take before its worker is killed.")
@click.option("--samples", type=click.IntRange(min=1), default=2, show_default=True, help="Input samples per cell.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the drawn samples and of an hf: model's weights.")
@click.option(
    "--compare",
    "compared",
    nargs=2,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="A B: which cells became less accurate from sweep folder A to B.",
)
@click.option("--report", "report_only", is_flag=True, help="Judge nothing: write OUT's page and print its summary and groups from its results.")
@click.option("--list", "listing", is_flag=True, help="Print the zoo's table: every model type transformers registers, built or why not.")
@click.option(
    "--modality", "modalities", multiple=True, type=click.Choice(["text", "vision", "audio", "multimodal"]),
    help="Sweep only the zoo's architectures of this modality (repeatable; with no ENTRIES).",
)  # fmt: skip
@click.option(
    "--first", type=click.IntRange(min=1), default=None,
    help="Sweep only the first N of the zoo's architectures, in its order (numfuzz's own, then the rest in an order no family clusters in; with no ENTRIES).",
)  # fmt: skip
@device_option
@import_option
def models(
    entries: tuple[str, ...], out: Path | None, targets: tuple[str, ...], precisions: tuple[str, ...], modes: tuple[str, ...], positions: tuple[int, ...],
    budget: float | None, workers: int, ray_address: str | None, cell_timeout: float, samples: int, seed: int, compared: tuple[Path, Path] | None,
    report_only: bool, listing: bool, modalities: tuple[str, ...], first: int | None, device: str | None, imports: tuple[str, ...],
) -> None:  # fmt: skip
    """Sweep ENTRIES (hf:ARCH or FILE.py:FUNCTION; default every architecture `numfuzz model` builds) across targets,
    precisions, forward and training step, and sequence lengths, each cell judged as `numfuzz model` judges it. Results
    go to OUT/results.jsonl as each cell finishes; a rerun skips the cells there. Every finding's region is saved under
    OUT/findings for minimize and repro; OUT/index.html shows the grid. Exit 1 when a cell is a finding no known issue
    explains (with --compare: when a cell became less accurate), 0 when none, 2 on bad input."""
    from numfuzz.model.hf_zoo.catalog import CatalogError
    from numfuzz.sweep.results import ResultsError

    try:
        if listing:
            _list()
        if compared is not None:
            _compare(*compared)
        if out is None:
            fail("--out DIR is needed: the folder the sweep's results go to")
        if report_only:
            _finish(out, None)
        for path in imports:
            import_user_code(path)
        swept = _models_swept(entries, modalities, first)
        _sweep(swept, out, targets, precisions, modes, positions, budget, workers, ray_address, cell_timeout, samples, seed, device, imports)
    except (ResultsError, CatalogError) as exc:
        fail(str(exc))


def _list() -> None:
    from numfuzz.model.hf_zoo.catalog import describe_catalog, load_catalog

    click.echo(describe_catalog(load_catalog()))
    sys.exit(0)


def _compare(a: Path, b: Path) -> None:
    from numfuzz.sweep.compare import compare

    found = compare(a, b)
    click.echo(found.text())
    sys.exit(1 if found.worse else 0)


def _targets(asked: tuple[str, ...]) -> list[str]:
    """The targets asked for (each must be available), or the default ones available here (the rest said on stderr)."""
    from numfuzz.targets import TargetError, resolve

    chosen = []
    for spec in asked or DEFAULT_TARGETS:
        try:
            ok, why = resolve(spec).available()
        except TargetError as exc:
            fail(str(exc))
        if ok:
            chosen.append(spec)
        elif asked:
            fail(f"target {spec} is unavailable: {why}")
        else:
            click.echo(f"left out {spec}: {why}", err=True)
    return chosen


def _models_swept(entries: tuple[str, ...], modalities: tuple[str, ...], first: int | None) -> list[str]:
    """The models asked for: ENTRIES, or the zoo's architectures (of the modalities asked, the first N)."""
    from numfuzz.sweep.grid import zoo_models

    if entries and (modalities or first):
        fail(f"{'--modality' if modalities else '--first'} selects among the zoo's architectures: give it without ENTRIES")
    return list(entries) or zoo_models(modalities)[:first]


def _sweep(models, out, targets, precisions, modes, positions, budget, workers, ray_address, cell_timeout, samples, seed, device, imports) -> None:  # noqa: ANN001
    from numfuzz.environment import default_device
    from numfuzz.sweep.grid import GridError, build_grid
    from numfuzz.sweep.pool import Settings, ray_records, records
    from numfuzz.sweep.results import append_result, load_results, write_versions

    device = device or default_device()
    try:
        grid = build_grid(
            models, _targets(targets), list(precisions or DEFAULT_PRECISIONS), list(modes or MODES),
            positions or DEFAULT_POSITIONS,
        )  # fmt: skip
    except GridError as exc:
        fail(str(exc))
    write_versions(out, device)
    done = load_results(out)
    todo = [c for c in grid if c.key not in done]
    click.echo(f"{len(grid)} cells, {len(grid) - len(todo)} done already, {len(todo)} to judge", err=True)
    settings = Settings(out.resolve(), samples, seed, device, tuple(str(Path(p).resolve()) if p.endswith(".py") else p for p in imports), cell_timeout)
    budget_s = budget * 60 if budget is not None else None
    flow = ray_records(todo, settings, ray_address, budget_s) if ray_address else records(todo, settings, workers, budget_s)
    for k, record in enumerate(flow, 1):
        append_result(out, record)
        where = f" at {record['module']}" + (f" ({record['line']})" if record.get("line") else "") if record.get("module") else ""
        click.echo(f"[{k}/{len(todo)}] {record['key']}: {record['verdict']}{where} ({record.get('seconds', 0):.0f} s)", err=True)
    _finish(out, grid)


def _finish(out: Path, grid: list | None) -> None:
    """The page, the summary per target and the groups (also in OUT/groups.json); exit 1 when a cell is a finding no known issue explains."""
    from numfuzz.corpus.store import write_atomic
    from numfuzz.report.models import write_page
    from numfuzz.sweep.groups import describe_groups, group_records
    from numfuzz.sweep.rematch import rematched
    from numfuzz.sweep.results import GROUPS, ResultsError, load_results, read_versions
    from numfuzz.sweep.summary import describe_summary, summarize

    results = rematched(load_results(out), read_versions(out))  # today's known issues, as the corpus listing has them
    if not results:
        raise ResultsError(f"{out}: no sweep results there")
    page = write_page(out, results)
    records = list(results.values())
    groups = group_records(records)
    write_atomic(out / GROUPS, json.dumps([g.to_json() for g in groups], indent=1) + "\n")
    findings = sum(len(g.members) for g in groups if g.status == "new")  # a refusal is no finding: it is listed unsupported
    of = f" of {len(grid)}" if grid is not None else ""
    click.echo(f"{len(results)}{of} cells judged, {findings} findings no known issue explains; the page: {page}")
    click.echo(describe_summary(summarize(records)))
    click.echo(f"\n{len(groups)} groups ({sum(g.status == 'new' for g in groups)} new), in {out / GROUPS}:")
    click.echo(describe_groups(groups))
    sys.exit(1 if findings else 0)
