"""`numfuzz repro`: a standalone repro script and an issue text."""

from __future__ import annotations

from pathlib import Path

import click

from numfuzz.cli.cases import isolated_runner, prepare_case
from numfuzz.cli.confirming import confirm_case, newest_or_fail
from numfuzz.cli.failure import fail
from numfuzz.cli.options import case_argument, device_option, import_option, isolated_option, newest_option, no_confirm_option, target_option
from numfuzz.judge.verdicts import Verdict


@click.command()
@case_argument
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the script and the issue text (default: CASE's folder).",
)
@target_option
@device_option
@import_option
@isolated_option
@newest_option
@no_confirm_option
def repro(case_path, out_dir, target_spec, device, imports, isolated, newest, no_confirm) -> None:
    """Write a standalone repro script and an issue text in Markdown for a case.

    With newest interpreters configured (--newest, or $NUMFUZZ_NEWEST), the issue text says where the case
    reproduces on them (asked once, and kept beside a campaign's corpus)."""
    interpreters = newest_or_fail(newest, no_confirm)
    case, target, device = prepare_case(case_path, target_spec, device, imports)
    from numfuzz.repro.script import ReproError
    from numfuzz.repro.writer import write_repro

    recorded = list(case.run.imports)
    with isolated_runner(case, target.name, device, recorded, isolated) as runner:
        outcome = runner.evaluate_case(case) if runner is not None else None
    try:
        newest_lines = confirm_case(case_path, case, interpreters, imports, device) if interpreters and target_spec is None else []
        files = write_repro(case, target, device, out_dir if out_dir is not None else Path(case_path).parent, recorded, outcome, newest=newest_lines)
    except ReproError as exc:
        fail(str(exc))
    click.echo(f"script: {files.script}")
    click.echo(f"issue:  {files.issue}")
    verdict = files.outcome.verdict
    if verdict.is_listed_benign:  # the script checks the oracle's rule only, not the documented bounds
        why = "only rounding within the documented bounds" if verdict is Verdict.WITHIN_ROUNDING else "eager is equally unstable at the culprit op"
        note = f" (not a finding: {why}; the script, which checks accuracy against eager, still fails)"
    else:
        note = "" if verdict.is_finding else " (not a finding: the script will pass)"
    click.echo(f"verdict here: {verdict.value}{note}")
