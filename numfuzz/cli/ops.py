"""`numfuzz ops`: the op table, with each op's family, arity, domains, dtypes and how often the generator draws it."""

from __future__ import annotations

from collections import Counter

import click

from numfuzz.program.dtypes import FLOAT_DTYPES
from numfuzz.program.ops import FAMILIES, OPS


def weight_shares() -> dict[str, float]:
    """Each op's weight as a share of all weights: its chance at each step that grows a graph."""
    total = sum(op.weight for op in OPS.values())
    return {name: op.weight / total for name, op in OPS.items()}


def measured_shares(graphs: int, seed: int) -> dict[str, float]:
    """Each op's share of the nodes in `graphs` graphs of the campaign of `seed` on `numfuzz fuzz`'s defaults, domain guards included."""
    from numfuzz.address import case_seed
    from numfuzz.program.generator import generate  # draws values with torch: only when asked
    from numfuzz.program.space import GenConfig

    space = GenConfig.default()
    counts: Counter[str] = Counter()
    for i in range(graphs):
        graph, _ = generate(case_seed(seed, i), space)
        counts.update(n.op for n in graph.nodes)
    total = sum(counts.values()) or 1
    return {name: counts[name] / total for name in OPS}


def ops_table(measured: dict[str, float] | None = None, family: str | None = None) -> str:
    shares = weight_shares()
    header = f"{'op':<20}{'family':<13}{'arity':>5}  {'domains':<28}{'dtypes':<16}{'weight':>7}{'share':>8}"
    lines = [header + (f"{'drawn':>8}" if measured is not None else "")]
    for name, op in OPS.items():
        if family and op.family != family:
            continue
        domains = ",".join(op.domain(i) for i in range(op.arity))
        dtypes = ("all" if op.dtypes == FLOAT_DTYPES else ",".join(op.dtypes)) + (f"; x{op.index_arg} i64" if op.index_arg is not None else "")
        line = f"{name:<20}{op.family:<13}{op.arity:>5}  {domains:<28}{dtypes:<16}{op.weight:>7.2f}{shares[name]:>8.2%}"
        lines.append(line + (f"{measured[name]:>8.2%}" if measured is not None else ""))
    families = Counter(op.family for op in OPS.values())
    lines.append(f"{len(OPS)} ops; by family: " + ", ".join(f"{f} {n}" for f, n in sorted(families.items())))
    lines.append("share: the op's weight over all weights; dtypes: all = " + ",".join(FLOAT_DTYPES) + "; xN i64: argument N is an integer input (domain index)")
    if measured is not None:
        lines.append("drawn: the op's share of all nodes in the measured graphs (domain guards such as abs included)")
    return "\n".join(lines)


@click.command()
@click.option(
    "--measure",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Also count each op's share of the nodes of N graphs drawn as numfuzz fuzz draws them by default.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Campaign seed of the measured graphs.")
@click.option("--family", type=click.Choice(sorted(FAMILIES)), default=None, help="List only the ops of this family.")
def ops(measure: int | None, seed: int, family: str | None) -> None:
    """List every op the generator draws, with its family, arity, input domains, dtypes and share of draws."""
    click.echo(ops_table(measured_shares(measure, seed) if measure else None, family))
