"""Command line: thin subcommands over the library. The only place that exits the process."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import click

from numfuzz.cli_reduce import corpus, minimize, repro
from numfuzz.cli_common import (
    device_option,
    fail,
    import_option,
    import_user_code,
    isolated_option,
    isolated_runner,
    quiet_libraries,
    recorded_imports,
    resolve_targets,
)
from numfuzz.defaults import DEFAULT_CASE_TIMEOUT_S, DEFAULT_MINIMIZE_TIMEOUT_S, DEFAULT_SAMPLES


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Debug logging on stderr.")
@click.version_option(package_name="numfuzz")
def main(verbose: bool) -> None:
    """numfuzz: is the compiled result further from the float64 truth than eager is?"""
    quiet_libraries(verbose)


@main.command()
@import_option
def targets(imports: tuple[str, ...]) -> None:
    """List every target family with availability."""
    for spec in imports:
        import_user_code(spec)
    from numfuzz.targets import families, resolve

    for family in families():
        click.echo(f"{family.prefix:<10} {family.summary}")
        for example in family.examples:
            try:
                ok, why = resolve(example).available()
            except Exception as exc:  # a broken plugin must not hide the others
                ok, why = False, f"{type(exc).__name__}: {exc}"
            click.echo(f"    {example:<50} {'available' if ok else 'unavailable: ' + why}")


@main.command()
@click.option("--target", "target_specs", multiple=True, required=True, help="Target spec; repeat for several.")
@click.option("--graphs", type=click.IntRange(min=1), default=None, help="Stop when this many graphs are done (counted over resumed runs).")
@click.option("--time", "seconds", type=click.FloatRange(min=0), default=None, help="Stop after this many seconds of this run.")
@click.option("--seed", type=int, default=0, show_default=True, help="Campaign seed.")
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path), default=None, help="Findings, journal (for resume), stats and logs go here.")
@click.option("--samples", type=click.IntRange(min=1), default=DEFAULT_SAMPLES, show_default=True, help="Input samples per compiled graph.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--max-dim", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--ops", default=None, metavar="OP,OP", help="Draw only these ops (default: all).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes, each kept warm.")
@click.option("--shard", default="0/1", show_default=True, metavar="K/N", help="Run shard K of N: disjoint cases, mergeable corpora.")
@click.option("--case-timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_CASE_TIMEOUT_S, show_default=True, help="Seconds before a case counts as hung.")
@click.option("--memory-limit", type=click.IntRange(min=0), default=None, metavar="MIB", help="Memory per worker before a case counts as OOM (default: 80% of RAM shared; 0: none).")
@click.option("--minimize/--no-minimize", default=True, show_default=True, help="Minimise each new finding into CORPUS/minimized.")
@click.option("--minimize-timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_MINIMIZE_TIMEOUT_S, show_default=True, help="Seconds one minimisation may take.")
@device_option
@import_option
def fuzz(target_specs, graphs, seconds, seed, corpus, samples, max_nodes, max_dim, ops, workers, shard, case_timeout, memory_limit, minimize, minimize_timeout, device, imports) -> None:
    """Generate random graphs and compare each target with eager, both against float64.

    Runs in warm worker processes; a target that crashes, hangs or exhausts memory becomes a
    finding. Running again on the same corpus resumes the campaign.
    """
    if graphs is None and seconds is None:
        fail("give a budget: --graphs N or --time SECONDS")
    from numfuzz.journal import parse_shard

    try:
        shard_k_n = parse_shard(shard)
    except ValueError as exc:
        fail(str(exc))
    for spec in imports:
        import_user_code(spec)
    from numfuzz.campaign import CampaignConfig, run_campaign
    from numfuzz.cases import default_device
    from numfuzz.generator import GenConfig
    from numfuzz.journal import JournalError
    from numfuzz.workers import WorkerStartError

    device = device or default_device()
    op_names = tuple(o.strip() for o in ops.split(",") if o.strip()) if ops else ()
    try:
        gen = GenConfig(max_nodes=max_nodes, max_dim=max_dim, **({"ops": op_names} if op_names else {}))
    except ValueError as exc:
        fail(str(exc))
    config = CampaignConfig(
        targets=[t.name for t in resolve_targets(target_specs, device)],
        graphs=graphs,
        seconds=seconds,
        seed=seed,
        corpus=corpus,
        samples=samples,
        device=device,
        gen=gen,
        workers=workers,
        shard=shard_k_n,
        case_timeout=case_timeout,
        memory_limit=None if memory_limit is None else memory_limit * 2**20,
        imports=tuple(imports),
        minimize=minimize,
        minimize_timeout=minimize_timeout,
    )
    previous = signal.signal(signal.SIGTERM, _stop_gracefully)
    try:
        summary = run_campaign(config)
    except (JournalError, WorkerStartError) as exc:
        fail(str(exc))
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(summary.table())
    if summary.interrupted:
        sys.exit(130)


def _stop_gracefully(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the campaign stops as on Ctrl-C: workers stopped, journal written


@main.command()
@click.argument("case_path", metavar="CASE", type=click.Path(path_type=Path))
@click.option("--target", "target_spec", default=None, help="Override the case's target.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@device_option
@import_option
@isolated_option
def replay(case_path, target_spec, as_json, device, imports, isolated) -> None:
    """Re-run a case. Exit 1 when it is still a finding, 0 when not, 2 on bad input."""
    from numfuzz.corpus import CaseError, load_case

    try:
        case = load_case(case_path)
        case.tensors()
    except CaseError as exc:
        fail(str(exc))
    for spec in imports:
        import_user_code(spec)
    from numfuzz.cases import default_device, run_case
    from numfuzz.report import outcome_table

    device = device or default_device()
    (target,) = resolve_targets((target_spec or case.target,), device)
    with isolated_runner(case, target.name, device, recorded_imports(case, imports), isolated) as runner:
        outcome = run_case(case, target, device) if runner is None else runner.evaluate(case.graph, case.tensors())
    if as_json:
        click.echo(json.dumps({"case": str(case_path), "target": target.name, **outcome.to_json()}, indent=1))
    else:
        click.echo(f"case {case_path} on {target.name} ({device})")
        click.echo(outcome_table(outcome))
    sys.exit(1 if outcome.verdict.is_finding else 0)


main.add_command(minimize)
main.add_command(repro)
main.add_command(corpus)
