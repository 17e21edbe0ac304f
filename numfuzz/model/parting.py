"""Where the compiled model first computes other bits than eager, and which of the two is nearer float64 there.

The seed report's question, asked of every op even where nothing is a finding: a user who sees the
compiled loss differ from eager's wants the ops where the two part, and whether the compiler made
them better or worse. The model's mapped calls (`numfuzz.model.region`) are compiled once as a
numfuzz program with every value exposed as an output. An op parts where the two sides give its
inputs the same bits and it the same dtype yet its result differs: the target computed that op, or a
fusion ending at it, otherwise (Inductor, say, reads a fused value before its rounding to bf16).
Each side's value there is judged against the program's float64 value, by numfuzz's oracle.
Exposing every value can change what the compiler fuses; the text says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numfuzz.judge.execute import evaluate
from numfuzz.judge.oracle import compare_output
from numfuzz.model.region import Region, same_bits
from numfuzz.program.graph_edit import with_outputs
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target

SHOWN = 8  # the partings a result lists


@dataclass
class Parting:
    node: int
    op: str
    line: str  # where the model's source makes the call
    differ: int  # elements whose bits differ, over the samples
    elements: int
    eager_ulp: float  # the largest error against the program's float64 value there, in ULPs of the op's dtype
    target_ulp: float
    verdict: str  # the oracle's on the target there: more_accurate, equal, less_accurate, ...


def find_partings(region: Region, target: Target, device: str) -> list[Parting] | str:
    """The ops where the target first computes other bits than eager (see the module), in program order; or why the
    program with every value exposed could not be judged."""
    graph, n_in = region.graph, len(region.graph.inputs)
    specs = infer_specs(graph)
    exposed = with_outputs(graph, [n_in + k for k in range(len(graph.nodes))])
    outcome = evaluate(exposed, region.samples, target, device)
    if outcome.runs is None:
        return f"the program with every value exposed gave {outcome.verdict.value}{': ' + outcome.detail if outcome.detail else ''}"
    runs = outcome.runs
    same = [True] * n_in
    found = []
    for k, node in enumerate(graph.nodes):
        eager, got = [run[k] for run in runs.eager], [run[k] for run in runs.target]
        same.append(all(same_bits(x, y) for x, y in zip(eager, got)))
        if same[-1] or not all(same[a] for a in node.args):
            continue
        dtype = specs[n_in + k].dtype
        if dtype not in ("bf16", "fp16", "fp32"):
            continue
        e, t = runs.flat("eager", k), runs.flat("target", k)
        judged = compare_output(k, dtype, runs.flat("reference", k), e, t)
        differ = int(np.sum((e != t) & ~(np.isnan(e) & np.isnan(t))))
        found.append(Parting(k, node.op, region.sources[k], differ, e.size, judged.eager_max_ulp, judged.target_max_ulp, judged.verdict))
    return found


def describe_partings(partings: list[Parting] | str, target: str) -> str:
    if isinstance(partings, str):
        return f"where {target} and eager part: not found ({partings})"
    if not partings:
        return f"where {target} and eager part: nowhere among the mapped ops (every exposed value has eager's bits)"
    lines = [
        f"where {target} and eager part (each op's inputs the same bits on both sides, its result not; the mapped ops compiled "
        "with every value exposed, which can change what fuses), against float64 there:"
    ]
    for p in partings[:SHOWN]:
        lines.append(
            f"  {p.op:<12} {p.differ} of {p.elements} elements differ; max ULP eager {p.eager_ulp:.3g}, {target} {p.target_ulp:.3g}: {p.verdict}  at {p.line}"
        )
    if len(partings) > SHOWN:
        lines.append(f"  ... and {len(partings) - SHOWN} more")
    return "\n".join(lines)
