"""`numfuzz minimize`: shrink a finding to the smallest case with the same signature."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from numfuzz.cli.cases import isolated_runner, prepare_case
from numfuzz.cli.options import case_argument, device_option, import_option, isolated_option, target_option


@click.command()
@case_argument
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None, help="A .json file or a folder for the minimised case (default: CASE's folder).")
@click.option("--max-compiles", type=click.IntRange(min=1), default=None, help="Compile budget (default 400).")
@target_option
@device_option
@import_option
@isolated_option
def minimize(case_path, out, max_compiles, target_spec, device, imports, isolated) -> None:
    """Shrink a finding to the smallest case with the same signature. Exit 1 when it does not reproduce."""
    case, target, device = prepare_case(case_path, target_spec, device, imports)
    from numfuzz.reduce.minimize import DEFAULT_MAX_COMPILES, minimize_case, save_minimized

    with isolated_runner(case, target.name, device, list(case.run.imports), isolated, spare=True) as runner:
        evaluate = runner.evaluate_case if runner is not None else None
        result = minimize_case(case, target, device, max_compiles or DEFAULT_MAX_COMPILES, runner=evaluate)
    if not result.reproduced:
        click.echo(f"numfuzz: {case_path}: {result.summary()}", err=True)
        sys.exit(1)
    path = save_minimized(result, out if out is not None else Path(case_path).parent)
    click.echo(result.summary())
    click.echo(f"minimised case: {path} (the original, {case_path}, is kept and also embedded)")
