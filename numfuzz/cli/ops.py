"""`numfuzz ops`: the op table, with each op's family, arity, domains, dtypes and how often the generator draws it; the
database ops numfuzz refuses, each with why."""

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


def refused_here(with_torch: bool) -> dict[str, str]:
    """The ops numfuzz does not draw, by name, with why: the snapshot's refusals; `with_torch`, also the database ops
    this torch lacks (the snapshot was read on another), which takes importing torch."""
    from numfuzz.program.op_table.database import REFUSED

    if not with_torch:
        return dict(REFUSED)
    from numfuzz.program.op_db.calls import missing_here
    from numfuzz.program.op_db.entries import snapshot

    _, entries = snapshot()
    lacking = {op.name: why for op in entries if op.name in OPS and (why := missing_here(op))}
    return {**REFUSED, **lacking}


def ops_table(measured: dict[str, float] | None = None, family: str | None = None) -> str:
    shares = weight_shares()
    refused = refused_here(with_torch=measured is not None)
    width = max(20, max(len(name) for name in OPS) + 2)
    header = f"{'op':<{width}}{'family':<13}{'arity':>5}  {'domains':<28}{'dtypes':<16}{'weight':>7}{'share':>8}"
    lines = [header + (f"{'drawn':>8}" if measured is not None else "")]
    for name, op in OPS.items():
        if (family and op.family != family) or name in refused:
            continue
        domains = ",".join(op.domain(i) for i in range(op.arity))
        dtypes = ("all" if op.dtypes == FLOAT_DTYPES else ",".join(op.dtypes)) + (f"; x{op.index_arg} i64" if op.index_arg is not None else "")
        line = f"{name:<{width}}{op.family:<13}{op.arity:>5}  {domains:<28}{dtypes[:15]:<16}{op.weight:>7.2f}{shares[name]:>8.2%}"
        lines.append(line + (f"{measured[name]:>8.2%}" if measured is not None else ""))
    drawn = [op for name, op in OPS.items() if name not in refused]
    families = Counter(op.family for op in drawn)
    database = sum(op.family == "database" for op in drawn)
    lines.append(f"{len(drawn)} ops drawn by default ({len(drawn) - database} hand-written, {database} from the op databases); by family: "
                 + ", ".join(f"{f} {n}" for f, n in sorted(families.items())))  # fmt: skip
    lines.append("share: the op's weight over all weights; dtypes: all = " + ",".join(FLOAT_DTYPES) + "; xN i64: argument N is an integer input (domain index)")
    if not family and refused:
        lines.append(f"\nrefused ({len(refused)}): database ops numfuzz does not draw, and why")
        lines += [f"{name:<{width}}{why}" for name, why in sorted(refused.items())]
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
