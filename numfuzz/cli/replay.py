"""`numfuzz replay`: re-run a case and print its error table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from numfuzz.cli.common import (
    bounds_in_environment,
    bounds_option,
    device_option,
    fail,
    import_option,
    import_user_code,
    isolated_option,
    isolated_runner,
    recorded_imports,
    resolve_targets,
)


@click.command()
@click.argument("case_path", metavar="CASE", type=click.Path(path_type=Path))
@click.option("--target", "target_spec", default=None, help="Override the case's target.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@device_option
@import_option
@isolated_option
@bounds_option
def replay(case_path, target_spec, as_json, device, imports, isolated, bounds_files) -> None:
    """Re-run a case. Exit 1 when it is still a finding, 0 when not (within_rounding included), 2 on bad input."""
    from numfuzz.corpus.case import CaseError
    from numfuzz.corpus.store import load_case

    try:
        case = load_case(case_path)
        case.tensors()
    except CaseError as exc:
        fail(str(exc))
    for spec in imports:
        import_user_code(spec)
    from numfuzz.cli.tables import outcome_table
    from numfuzz.corpus.make import run_case
    from numfuzz.environment import default_device, provenance

    device = device or default_device()
    (target,) = resolve_targets((target_spec or case.target,), device)
    with bounds_in_environment(bounds_files), isolated_runner(case, target.name, device, recorded_imports(case, imports), isolated) as runner:
        outcome = run_case(case, target, device) if runner is None else runner.evaluate(case.graph, case.tensors())
    if as_json:
        click.echo(json.dumps({"case": str(case_path), "target": target.name, "versions": provenance(device), **outcome.to_json()}, indent=1))
    else:
        here = provenance(device)
        click.echo(f"case {case_path} on {target.name} ({device}, {here['isa']}; torch {here['torch']}, thunder {here['thunder']}, python {here['python']})")
        click.echo(outcome_table(outcome))
    sys.exit(1 if outcome.verdict.is_finding else 0)
