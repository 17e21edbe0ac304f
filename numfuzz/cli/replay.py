"""`numfuzz replay`: re-run a case and print its error table."""

from __future__ import annotations

import json
import sys

import click

from numfuzz.cli.cases import isolated_runner, prepare_case
from numfuzz.cli.failure import fail, numfuzz_failed
from numfuzz.cli.options import bounds_option, case_argument, device_option, import_option, isolated_option, target_option
from numfuzz.cli.setup import bounds_in_environment


@click.command()
@case_argument
@target_option
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.option("--grad", is_flag=True, help="Judge every input's gradient too, for upstream gradients drawn for the case (when it has none).")
@click.option(
    "--autocast",
    "autocast_dtype",
    type=click.Choice(["bf16", "fp16"]),
    default=None,
    help="Run every op of the case under torch.autocast of this dtype (with --grad: a training step under autocast).",
)
@device_option
@import_option
@isolated_option
@bounds_option
def replay(case_path, target_spec, as_json, grad, autocast_dtype, device, imports, isolated, bounds_files) -> None:
    """Re-run a case. Exit 1 when it is still a finding, 0 when not (within_rounding included), 2 on bad input, 3 when numfuzz itself fails."""
    case, target, device = prepare_case(case_path, target_spec, device, imports)
    if autocast_dtype:
        from numfuzz.corpus.make import in_autocast_region
        from numfuzz.program.ir import GraphError

        try:
            case = in_autocast_region(case, autocast_dtype)
        except GraphError as exc:
            fail(f"{case_path}: not runnable under autocast {autocast_dtype}: {exc}")
    if grad:
        from numfuzz.corpus.make import with_gradients

        case = with_gradients(case)
    from numfuzz.cli.tables import outcome_table
    from numfuzz.environment import provenance
    from numfuzz.program.autocast import region_label
    from numfuzz.runner.case_runner import run_case

    try:  # a target's own failure is a verdict (crash), a worker's is said by isolated_runner: anything else raised here is numfuzz's
        with bounds_in_environment(bounds_files) as bounds, isolated_runner(case, target.name, device, list(case.run.imports), isolated) as runner:
            outcome = run_case(case, target, bounds=bounds) if runner is None else runner.evaluate_case(case)
    except Exception as exc:
        numfuzz_failed(f"judging {case_path}", exc)
    if as_json:
        click.echo(json.dumps({"case": str(case_path), "target": target.name, "versions": provenance(device), **outcome.to_json()}, indent=1))
    else:
        here = provenance(device)
        label = " ".join(part for part in (case.run.compile_label(dims=True), region_label(case.graph)) if part)
        how = f" [{label}]" if label else ""
        click.echo(
            f"case {case_path} on {target.name}{how} ({device}, {here['isa']}; torch {here['torch']}, thunder {here['thunder']}, python {here['python']})"
        )
        click.echo(outcome_table(outcome, len(case.graph.outputs), bounds))
    sys.exit(1 if outcome.verdict.is_finding else 0)
