"""Where a gradient finding starts (an autograd finding, judged like a value): the forward op whose backward is where the target and eager part ways.

A compiled backward is one program (AOTAutograd partitions and fuses it; Thunder builds its own
VJP trace), so its intermediate gradients cannot be exposed the way the forward's values can.
It is cut instead, one op at a time: each op of the flagged gradient's path runs alone on eager's
forward values, with eager's own gradient of its output as the upstream gradient, through the
target's backward, eager's and float64's. The culprit is the first op, from the outputs back
towards the inputs (the order a backward runs), whose local gradients the target gets less
accurate than eager. One compile per op on the path; where no op alone shows it, the finding
is named after the flagged input's nearest op, and `located` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import BACKWARD
from numfuzz.judge.compiled import laid_out
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.facts import Analysis, Culprit
from numfuzz.judge.gradient_rounding import measure_gradient
from numfuzz.judge.kinks import subgradient_evidence
from numfuzz.judge.nan_unreached import nan_unreached_evidence
from numfuzz.judge.oracle import gradient_bits_lost
from numfuzz.judge.reduction_order import reordered_gradient_evidence
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target


def gradient_values(graph: Graph, samples: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], device: str) -> list[tuple[list, list]]:
    """Per sample: eager's value of every input and node, and eager's gradient of each (None where it gets none)."""
    every = Graph(graph.inputs, graph.nodes, tuple(range(graph.n_values)))
    fn = compile_source(lower(every))
    n_in = len(graph.inputs)
    found = []
    for sample, grads in zip(samples, upstream):
        # integer inputs (indices) get no gradient
        leaves = [x.to(device).detach().clone().requires_grad_(x.is_floating_point()) for x in sample]
        with torch.enable_grad():
            values = list(leaves) + list(fn(*laid_out(leaves, graph.inputs)))[n_in:]
            # an output with no gradient (a count, a comparison) takes no part in the backward
            pairs = [(values[o], g.to(device)) for o, g in zip(graph.outputs, grads) if values[o].requires_grad]
            wanted = [v for v in values if v.requires_grad]
            got = torch.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True) if pairs else [None] * len(wanted)
        by_id = {id(v): g for v, g in zip(wanted, got)}
        found.append(([v.detach() for v in values], [by_id.get(id(v)) for v in values]))
    return found


def _path(graph: Graph, input_index: int) -> list[int]:
    """Node positions that lie between input `input_index` and an output, from the outputs back."""
    n_in = len(graph.inputs)
    upstream_of_outputs = set()
    for o in graph.outputs:
        upstream_of_outputs |= set(cone(graph, o))
    reaches = {input_index}
    for j, node in enumerate(graph.nodes):
        if any(a in reaches for a in node.args):
            reaches.add(n_in + j)
    return sorted((j for j in upstream_of_outputs if n_in + j in reaches), reverse=True)


def _alone(graph: Graph, j: int) -> Graph:
    """Node j alone, its arguments as inputs."""
    specs = infer_specs(graph)
    node = graph.nodes[j]
    args = list(dict.fromkeys(node.args))
    return Graph(tuple(specs[a] for a in args), (Node(node.op, tuple(args.index(a) for a in node.args), node.attrs),), (len(args),))


@dataclass
class Cut:
    """The culprit's backward run alone: the one-op graph, eager's values of its inputs and gradient of its output, the judgement."""

    graph: Graph
    rows: list[list[torch.Tensor]]
    upstream: list[list[torch.Tensor]]
    outcome: Outcome


def locate_backward(
    graph: Graph, samples: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], target: Target, device: str, input_index: int
) -> tuple[Culprit, list[str], Cut | None]:
    """The op whose backward the target gets wrong first, the evidence, and that op's backward cut out (None where none alone shows it)."""
    values = gradient_values(graph, samples, upstream, device)
    specs = infer_specs(graph)
    path = _path(graph, input_index)
    for j in path:
        node = graph.nodes[j]
        out = len(graph.inputs) + j
        rows = [[vals[a].cpu() for a in dict.fromkeys(node.args)] for vals, _ in values]
        grads = [[g[out].cpu() if g[out] is not None else torch.zeros_like(vals[out]).cpu()] for vals, g in values]
        alone = _alone(graph, j)
        local = evaluate(alone, rows, target, device, upstream=grads)
        worse = [e for e in local.outputs[1:] if Verdict(e.verdict).is_accuracy]
        if local.verdict.is_accuracy and worse:
            evidence = [
                f"`{node.op}` ({specs[out].dtype}) alone, on eager's forward values and eager's gradient of its output: the target's gradients of its"
                f" inputs reach {max(e.target_max_ulp for e in worse):.3g} ULP against float64, eager's {max(e.eager_max_ulp for e in worse):.3g}"
            ]
            return Culprit(j, node.op, specs[out].dtype, local.verdict.value, "cutting the backward"), evidence, Cut(alone, rows, grads, local)
    j = path[-1] if path else 0
    out = len(graph.inputs) + j
    why = "no op's backward alone is less accurate on the target: the difference comes from how the backward is fused or partitioned"
    return Culprit(j, graph.nodes[j].op, specs[out].dtype, "", f"fallback ({why})"), [why], None


def analyse_gradient(
    graph: Graph,
    samples: list[list[torch.Tensor]],
    upstream: list[list[torch.Tensor]],
    target: Target,
    device: str,
    outcome: Outcome,
    flagged: int,
    bounds: Bounds,
) -> Analysis:
    """The facts of a finding in the gradient of input `flagged - outputs`: its culprit, evidence and rounding-error record."""
    input_index = flagged - len(graph.outputs)
    culprit, evidence, cut = locate_backward(graph, samples, upstream, target, device, input_index)
    evidence = [f"the gradient of input x{input_index} is {outcome.verdict.value}", *evidence]
    record = measure_gradient(cut.graph, cut.rows, cut.upstream, cut.outcome, bounds, device) if cut is not None else None
    reordered = None
    if outcome.oracle is Verdict.NONFINITE and cut is not None and cut.outcome.runs is not None:  # the probe the reorder rule reads
        first_grad = len(cut.graph.outputs)  # the cut judges its outputs, then each input's gradient: the reduced input's comes first
        reordered = reordered_gradient_evidence(cut.graph, cut.rows, cut.upstream, [run[first_grad] for run in cut.outcome.runs.target])
    facts = Analysis(flagged, BACKWARD.name, evidence, culprit.op, culprit.dtype, culprit=culprit, gradient_of=input_index, rounding_error=record)
    facts.reordered = reordered
    if cut is None and outcome.oracle is Verdict.LESS_ACCURATE:  # no op's backward alone is worse: how much the whole one loses
        facts.fused_backward_bits = next((gradient_bits_lost(o) for o in outcome.outputs if o.index == flagged), None)
    facts.gradient_max_abs = gradient_max_abs(outcome.outputs, flagged)
    facts.subgradient = (
        subgradient_evidence(cut.graph, cut.rows, cut.upstream, cut.outcome.runs) if cut is not None and outcome.oracle is Verdict.LESS_ACCURATE else None
    )
    if outcome.oracle is Verdict.NONFINITE_CLASS:  # the probe the rule `nan_unreached` reads
        facts.nan_unreached = nan_unreached_evidence(graph, samples, upstream, outcome, flagged)
    return facts


def gradient_max_abs(outputs: list, flagged: int) -> tuple[float, float] | None:
    """The flagged gradient's largest absolute errors, the target's and eager's, from its judged errors (stored ones too)."""
    errors = next((o for o in outputs if o.index == flagged and o.elements), None)
    return (float(errors.target_max_abs), float(errors.eager_max_abs)) if errors is not None else None


def backward(ev: Evidence, bounds: Bounds) -> Analysis | None:
    """The facts of an accuracy finding in an input's gradient (judged after the outputs); None for any other outcome."""
    outcome, graph = ev.outcome, ev.graph
    if not outcome.oracle.is_accuracy or outcome.runs is None or ev.upstream is None or ev.output < len(graph.outputs):
        return None
    return analyse_gradient(graph, ev.samples, ev.upstream, ev.target, ev.device, outcome, ev.output, bounds)
