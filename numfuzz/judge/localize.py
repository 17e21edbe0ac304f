"""Where the difference starts: the first op at which the target is less accurate than eager.

A difference seen at an output may start at any op of that output's cone. One compile of the
program with every value of the cone made an output (the probe) shows the target's and eager's
value at each op. An op is the culprit when the target is worse than eager there twice over:

* locally -- the op applied to the target's own inputs (in float64) is further from the target's
  value than the op applied to eager's inputs is from eager's: the op itself lost accuracy, it
  did not only pass on a difference it was given;
* globally -- against the float64 reference of the whole program up to that op, as the oracle
  judges an output.

The first such op, in program order, is where the error starts. When no op qualifies, the
target parts from eager only where it is as accurate or more, and an ill-conditioned op further
down (a log near 1, a pow of 0) amplifies that: the case is `amplified`, not a finding.

Where it cannot say: exposing a value as an output can change what a compiler fuses, so the
probe sees each op's value as stored in its dtype; a fused op that consumed a wider value is then
judged on the stored one. When the probe no longer shows the finding at all, the cone is cut
instead (`locate_by_cutting`): the ops before op k are replaced by inputs holding eager's values,
and the culprit is the last k whose suffix still shows the finding (one compile per op tried,
from the output back). When that fails too, the flagged output's own op is named.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from numfuzz.judge.chunks import Flat
from numfuzz.judge.execute import Outcome, Runs, evaluate, flagged_output
from numfuzz.judge.facts import Culprit
from numfuzz.judge.oracle import OutputErrors, compare_output
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.graph_edit import cone, cut, index_after_cut, with_outputs
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target


@dataclass
class Probe:
    """The probe's runs: the values of every op in the cone, for eager, target and float64."""

    nodes: list[int]  # graph.nodes positions, in the probe's output order
    runs: Runs


def flagged_index(outcome: Outcome) -> int | None:
    """The position of the output that carries the case's verdict and loses the most bits."""
    flagged = flagged_output(outcome)
    return None if flagged is None else flagged.index


def run_probe(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, output: int) -> Probe | Outcome:
    """One compile: every value of output `output`'s cone made an output. An Outcome when the probe fails."""
    nodes = cone(graph, graph.outputs[output])
    n_in = len(graph.inputs)
    probed = evaluate(with_outputs(graph, [n_in + k for k in nodes]), samples, target, device)
    if probed.runs is None:
        return probed
    return Probe(nodes, probed.runs)


def probe_reproduces(graph: Graph, probe: Probe, outcome: Outcome, output: int) -> bool:
    """Does the probe's copy of the flagged output still show the finding? Exposing values can change the fusion."""
    position = probe.nodes.index(graph.outputs[output] - len(graph.inputs))
    dtype = infer_specs(graph)[graph.outputs[output]].dtype
    again = compare_output(position, dtype, probe.runs.parts("reference", position), probe.runs.parts("eager", position), probe.runs.parts("target", position))
    return Verdict(again.verdict).is_accuracy


def probe_values(probe: Probe, graph: Graph, samples: list[list[torch.Tensor]], who: str, value: int) -> list[torch.Tensor]:
    """Per sample, `who`'s tensor for a graph value: an input as given, else the probe's output."""
    n_in = len(graph.inputs)
    if value < n_in:
        return [sample[value] for sample in samples]
    position = probe.nodes.index(value - n_in)
    return [run[position] for run in getattr(probe.runs, who)]


def local_errors(graph: Graph, samples: list[list[torch.Tensor]], probe: Probe, k: int) -> OutputErrors:
    """Node k judged on its own: each side's value against the op applied, in float64, to that side's inputs."""
    node, specs = graph.nodes[k], infer_specs(graph)
    args = list(node.args)
    alone = Graph(tuple(specs[a] for a in args), (Node(node.op, tuple(range(len(args))), node.attrs),), (len(args),))
    reference_fn = compile_source(lower(alone, reference=True))
    position = probe.nodes.index(k)
    refs = {}
    with torch.no_grad():
        for who in ("target", "eager"):
            inputs = [probe_values(probe, graph, samples, who, a) for a in args]
            refs[who] = [reference_fn(*[inputs[j][s].to("cpu", torch.float64) for j in range(len(args))])[0] for s in range(len(samples))]
    dtype = specs[len(graph.inputs) + k].dtype
    return compare_output(
        position, dtype, Flat(refs["target"]), probe.runs.parts("eager", position), probe.runs.parts("target", position), eager_reference=Flat(refs["eager"])
    )


def locate_culprit(graph: Graph, samples: list[list[torch.Tensor]], probe: Probe, outcome: Outcome) -> Culprit | None:
    """The first op of the probed cone that is worse locally and globally; None when there is none (amplified)."""
    specs = infer_specs(graph)
    n_in = len(graph.inputs)
    for position, k in enumerate(probe.nodes):
        dtype = specs[n_in + k].dtype
        globally = compare_output(
            position, dtype, probe.runs.parts("reference", position), probe.runs.parts("eager", position), probe.runs.parts("target", position)
        )
        if not Verdict(globally.verdict).is_accuracy:
            continue
        locally = local_errors(graph, samples, probe, k)
        if Verdict(locally.verdict).is_accuracy:
            return Culprit(k, graph.nodes[k].op, dtype, locally.verdict, "probe")
    return None


def single_op_culprit(graph: Graph, outcome: Outcome, output: int, located: str) -> Culprit:
    """The flagged output's own op: where a cone has one op, or where the probe cannot say."""
    n_in = len(graph.inputs)
    k = graph.outputs[output] - n_in
    dtype = infer_specs(graph)[graph.outputs[output]].dtype
    return Culprit(k, graph.nodes[k].op, dtype, outcome.verdict.value, located)


@dataclass
class Suffix:
    """What cutting found: the program with the cone's ops before the culprit fed eager's values, and its outcome (with runs)."""

    graph: Graph
    samples: list[list[torch.Tensor]]
    outcome: Outcome
    output: int  # the flagged output's position in `graph.outputs`


def locate_by_cutting(
    graph: Graph,
    samples: list[list[torch.Tensor]],
    target: Target,
    device: str,
    outcome: Outcome,
    output: int,
    upstream: list[list[torch.Tensor]] | None = None,
) -> tuple[Culprit, Suffix]:
    """The op where the finding starts, found on the fused program itself: cut the cone from the front.

    Cut k replaces the cone's ops before its k-th by inputs holding eager's values (the rest of
    the program stays: another output can change what is fused). The culprit is the last k whose
    program still shows the finding; each cut tried costs one compile, from the output's op back.
    Cut 0 is the program itself, which shows it. A case run with gradients (`upstream`, per
    sample and output) is cut and compiled with them: a compiler may lower an op otherwise when
    its inputs require gradients (Thunder decomposes sdpa then), and the forward difference with it.
    """
    n_in, specs = len(graph.inputs), infer_specs(graph)
    positions = cone(graph, graph.outputs[output])
    everything = compile_source(lower(Graph(graph.inputs, graph.nodes, tuple(range(n_in, graph.n_values)))))
    with torch.no_grad():
        values = [list(sample) + [v.detach().clone() for v in everything(*sample)] for sample in samples]
    for k in range(len(positions) - 1, 0, -1):
        before = sorted(positions[:k])
        cut_graph = cut(graph, specs, set(before))
        rows = [row[:n_in] + [row[n_in + j] for j in before] for row in values]
        position = cut_graph.outputs.index(index_after_cut(graph, before, graph.outputs[output]))
        got = evaluate(cut_graph, rows, target, device, upstream=_kept_upstream(graph, set(before), upstream))
        flagged = next((o for o in got.outputs if o.index == position), None)
        if flagged is not None and flagged.verdict == outcome.verdict.value and got.runs is not None:
            node = positions[k]
            return Culprit(node, graph.nodes[node].op, specs[n_in + node].dtype, flagged.verdict, "cutting"), Suffix(cut_graph, rows, got, position)
    node = positions[0]
    return Culprit(node, graph.nodes[node].op, specs[n_in + node].dtype, outcome.verdict.value, "cutting"), Suffix(graph, samples, outcome, output)


def _kept_upstream(graph: Graph, cut_nodes: set[int], upstream: list[list[torch.Tensor]] | None) -> list[list[torch.Tensor]] | None:
    """Each sample's upstream gradients for the outputs a cut keeps (`graph_edit.cut` drops those that became inputs)."""
    if upstream is None:
        return None
    n_in = len(graph.inputs)
    kept = [i for i, o in enumerate(graph.outputs) if o >= n_in and (o - n_in) not in cut_nodes]
    return [[row[i] for i in kept] for row in upstream]
