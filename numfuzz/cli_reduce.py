"""CLI commands after the fuzzing: minimize, repro, corpus. Thin: the work is in the library."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import click

from numfuzz.cli_common import (
    device_option,
    fail,
    import_option,
    import_user_code,
    isolated_option,
    isolated_runner,
    recorded_imports,
    resolve_target,
)

_case_argument = click.argument("case_path", metavar="CASE", type=click.Path(path_type=Path))
_target_option = click.option("--target", "target_spec", default=None, help="Override the case's target.")


def _load(path: Path):
    from numfuzz.corpus import CaseError, load_case

    try:
        case = load_case(path)
        case.tensors()
    except CaseError as exc:
        fail(str(exc))
    return case


def _target(spec: str, case):
    recorded = case.provenance.get("imports") or []
    hint = f" (the case was found with {' '.join('--import ' + str(r) for r in recorded)})" if recorded else ""
    return resolve_target(spec, hint)


def _prepare(case_path: Path, target_spec: str | None, device: str | None, imports: tuple[str, ...]):
    case = _load(case_path)
    for spec in imports:
        import_user_code(spec)
    from numfuzz.cases import default_device

    target = _target(target_spec or case.target, case)
    case.provenance["imports"] = recorded_imports(case, imports)
    if not case.provenance["imports"]:
        del case.provenance["imports"]
    return case, target, device or default_device()


@click.command()
@_case_argument
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None, help="A .json file or a folder for the minimised case (default: CASE's folder).")
@click.option("--max-compiles", type=click.IntRange(min=1), default=None, help="Compile budget (default 400).")
@_target_option
@device_option
@import_option
@isolated_option
def minimize(case_path, out, max_compiles, target_spec, device, imports, isolated) -> None:
    """Shrink a finding to the smallest case with the same signature. Exit 1 when it does not reproduce."""
    case, target, device = _prepare(case_path, target_spec, device, imports)
    from numfuzz.minimize import DEFAULT_MAX_COMPILES, minimize_case, save_minimized

    with isolated_runner(case, target.name, device, case.provenance.get("imports", []), isolated) as runner:
        evaluate = runner.evaluate if runner is not None else None
        result = minimize_case(case, target, device, max_compiles or DEFAULT_MAX_COMPILES, runner=evaluate)
    if not result.reproduced:
        click.echo(f"numfuzz: {case_path}: {result.summary()}", err=True)
        sys.exit(1)
    path = save_minimized(result, out if out is not None else Path(case_path).parent)
    click.echo(result.summary())
    click.echo(f"minimised case: {path} (the original, {case_path}, is kept and also embedded)")


@click.command()
@_case_argument
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None, help="Folder for the script and the issue text (default: CASE's folder).")
@_target_option
@device_option
@import_option
@isolated_option
def repro(case_path, out_dir, target_spec, device, imports, isolated) -> None:
    """Write a standalone repro script and an issue text in Markdown for a case."""
    case, target, device = _prepare(case_path, target_spec, device, imports)
    from numfuzz.repro import ReproError, write_repro

    recorded = case.provenance.get("imports", [])
    with isolated_runner(case, target.name, device, recorded, isolated) as runner:
        outcome = runner.evaluate(case.graph, case.tensors()) if runner is not None else None
    try:
        files = write_repro(case, target, device, out_dir if out_dir is not None else Path(case_path).parent, recorded, outcome)
    except ReproError as exc:
        fail(str(exc))
    click.echo(f"script: {files.script}")
    click.echo(f"issue:  {files.issue}")
    verdict = files.outcome.verdict
    click.echo(f"verdict here: {verdict.value}" + ("" if verdict.is_finding else " (not a finding: the script will pass)"))


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
    from numfuzz.signature import group_corpus

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
