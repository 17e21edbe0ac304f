"""`numfuzz fuzz`: a campaign."""

from __future__ import annotations

import importlib.util
import signal
import sys
from pathlib import Path

import click

from numfuzz.campaign.defaults import (
    DEFAULT_CASE_TIMEOUT_S,
    DEFAULT_MINIMIZE_TAIL_S,
    DEFAULT_MINIMIZE_TIMEOUT_S,
    DEFAULT_SAMPLES,
    DEFAULT_SEARCH,
    available_cores,
)
from numfuzz.campaign.shares import split_shares
from numfuzz.cli.confirming import confirm_campaign, newest_or_fail
from numfuzz.cli.failure import fail
from numfuzz.cli.options import bounds_option, device_option, import_option, known_option, newest_option, no_confirm_option
from numfuzz.cli.setup import import_user_code, load_known_or_fail, resolve_targets, use_bounds_or_fail
from numfuzz.cli.shares import share_options
from numfuzz.program.space import GenConfig


@click.command()
@click.option("--target", "target_specs", multiple=True, required=True, help="Target spec; repeat for several.")
@click.option("--graphs", type=click.IntRange(min=1), default=None, help="Stop when this many graphs are done (counted over resumed runs).")
@click.option("--time", "seconds", type=click.FloatRange(min=0), default=None, help="Stop after this many seconds of this run.")
@click.option("--seed", type=int, default=0, show_default=True, help="Campaign seed.")
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path), default=None, help="Findings, journal (for resume), stats and logs go here.")
@click.option("--samples", type=click.IntRange(min=1), default=DEFAULT_SAMPLES, show_default=True, help="Input samples per compiled graph.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=GenConfig.max_nodes, show_default=True, help="Most ops a drawn graph grows to.")
@click.option(
    "--max-dim",
    type=click.IntRange(min=1),
    default=GenConfig.max_dim,
    show_default=True,
    help="Largest size of a drawn dim (seams, odd tails and model-sized values go past it).",
)
@click.option("--ops", default=None, metavar="OP,OP", help="Draw only these ops (default: all).")
@click.option(
    "--search",
    type=click.FloatRange(0, 16),
    default=DEFAULT_SEARCH,
    show_default=True,
    help="Extra runs per compiled graph, as a share of --samples, searching for inputs where the target's error grows against eager's (0: off).",
)
@click.option(
    "--grad/--no-grad",
    default=False,
    show_default=True,
    help="Also judge the gradient of every input, for upstream gradients drawn per output (the search is off then; such cases batch with each other).",
)
@share_options
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes, each kept warm (default: one per available core, or per GPU on CUDA, as memory allows; with --ray, one per CPU of the cluster, or per GPU on CUDA, and this caps them).",
)
@click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="ADDRESS",
    help="Run the workers as Ray actors on the cluster at ADDRESS (auto: the one this node belongs to; local: start one here).",
)
@click.option("--shard", default="0/1", show_default=True, metavar="K/N", help="Run shard K of N: disjoint cases, mergeable corpora.")
@click.option(
    "--case-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_CASE_TIMEOUT_S,
    show_default=True,
    help="Seconds before a case counts as hung.",
)
@click.option(
    "--memory-limit",
    type=click.IntRange(min=0),
    default=None,
    metavar="MIB",
    help="Memory per worker before a case counts as OOM (default: 80% of RAM shared; 0: none).",
)
@click.option("--minimize/--no-minimize", default=True, show_default=True, help="Minimise each new finding into CORPUS/minimized.")
@click.option(
    "--minimize-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_MINIMIZE_TIMEOUT_S,
    show_default=True,
    help="Seconds one minimisation may take.",
)
@click.option(
    "--minimize-tail",
    type=click.FloatRange(min=0),
    default=DEFAULT_MINIMIZE_TAIL_S,
    show_default=True,
    help="Seconds the campaign goes on minimising after its last case; what is left resumes next run.",
)
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Compile K graphs as one program (default: per target, where measured to pay: inductor 8, others 1).",
)
@device_option
@import_option
@known_option
@bounds_option
@newest_option
@no_confirm_option
def fuzz(
    target_specs,
    graphs,
    seconds,
    seed,
    corpus,
    samples,
    max_nodes,
    max_dim,
    ops,
    search,
    grad,
    workers,
    ray_address,
    shard,
    case_timeout,
    memory_limit,
    minimize,
    minimize_timeout,
    minimize_tail,
    batch,
    device,
    imports,
    known_files,
    bounds_files,
    newest,
    no_confirm,
    **shares: float,
) -> None:
    """Generate random graphs and compare each target with eager, both against float64.

    Runs in warm worker processes; a target that crashes, hangs or exhausts memory becomes a
    finding. Running again on the same corpus resumes the campaign. With newest interpreters configured
    (--newest, or $NUMFUZZ_NEWEST) and a corpus, the new groups are confirmed there at the end (`numfuzz corpus`).
    """
    shard_k_n = _checked_inputs(graphs, seconds, known_files, bounds_files, ray_address, shard, imports)
    interpreters = newest_or_fail(newest, no_confirm) if corpus is not None else []
    from numfuzz.campaign.config import CampaignConfig
    from numfuzz.environment import default_device

    device = device or default_device()
    memory_bytes = None if memory_limit is None else memory_limit * 2**20
    if workers is None and ray_address is None:  # with --ray the cluster's size decides
        from numfuzz.campaign.defaults import default_workers

        workers = default_workers(device, memory_bytes or None)
    op_names = tuple(o.strip() for o in ops.split(",") if o.strip()) if ops else ()
    try:
        gen, mix, own = split_shares(shares, available_cores(), max_nodes=max_nodes, max_dim=max_dim, **({"ops": op_names} if op_names else {}))
        config = CampaignConfig(
            targets=tuple(t.name for t in resolve_targets(target_specs)),
            graphs=graphs,
            seconds=seconds,
            seed=seed,
            corpus=corpus,
            samples=samples,
            search=search,
            grad=grad,
            device=device,
            gen=gen,
            mix=mix,
            workers=workers or 0,
            ray=ray_address,
            shard=shard_k_n,
            case_timeout=case_timeout,
            memory_limit=memory_bytes,
            imports=tuple(imports),
            minimize=minimize,
            minimize_timeout=minimize_timeout,
            known_files=tuple(str(f) for f in known_files),
            bound_files=tuple(str(f) for f in bounds_files),
            minimize_tail=minimize_tail,
            batch=batch,
            **own,
        )
    except ValueError as exc:
        fail(str(exc))
    _run(config)
    if interpreters:  # an interrupted campaign has exited
        confirm_campaign(config, interpreters)


def _checked_inputs(graphs, seconds, known_files, bounds_files, ray_address, shard: str, imports) -> tuple[int, int]:
    """Everything the campaign needs that can be wrong, checked before it starts (one line and exit 2 each); the shard."""
    if graphs is None and seconds is None:
        fail("give a budget: --graphs N or --time SECONDS")
    load_known_or_fail(known_files)  # a malformed file stops the campaign before it starts
    use_bounds_or_fail(bounds_files)  # likewise
    if ray_address is not None and importlib.util.find_spec("ray") is None:
        fail("--ray needs Ray: pip install 'numfuzz[ray]'")
    from numfuzz.campaign.journal import parse_shard

    try:
        shard_k_n = parse_shard(shard)
    except ValueError as exc:
        fail(str(exc))
    for spec in imports:
        import_user_code(spec)
    return shard_k_n


def _run(config) -> None:
    """The campaign, stopped as on Ctrl-C by SIGTERM; its summary; exit 130 when interrupted."""
    from numfuzz.campaign.journal import JournalError
    from numfuzz.campaign.loop import run_campaign
    from numfuzz.workers.pool import WorkerStartError

    previous = signal.signal(signal.SIGTERM, _stop_gracefully)
    try:
        summary = run_campaign(config)  # the bounds travel in the configuration, to every worker
    except (JournalError, WorkerStartError) as exc:
        fail(str(exc))
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(summary.table())
    if summary.interrupted:
        sys.exit(130)


def _stop_gracefully(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the campaign stops as on Ctrl-C: workers stopped, journal written
