"""Which op a target refuses: each node compiled alone, on eager's values of its inputs, until one gives the same refusal.

A refusal (`judge.refusal`) names an argument, not always the op, and a coverage list needs both: the
op is the node that, alone, draws the same refusal (its fingerprint). The nodes whose attributes the
message names are tried first (`{ceil_mode=} is not supported` names max_pool2d's), then the others in
program order: one compile each, a single op's, where the refusal is usually raised while tracing.
The whole program's samples are not needed: the first sample's eager values feed the node.
"""

from __future__ import annotations

import torch

from numfuzz.judge.compiled import laid_out
from numfuzz.judge.crash import crash_fingerprint
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.facts import Analysis, Culprit
from numfuzz.judge.refusal import argument_named
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target

LOCATED = "alone"  # how the refusing op was found: compiled alone, it refuses the same way


def refusing_op(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome) -> Analysis | None:
    """The facts of a refusal: the first node that, compiled alone, draws the same refusal; None where none does."""
    if outcome.oracle is not Verdict.UNSUPPORTED or not samples or not graph.nodes:
        return None
    fingerprint = crash_fingerprint(outcome.detail)
    message = outcome.detail.splitlines()[0] if outcome.detail.strip() else ""
    specs, n_in = infer_specs(graph), len(graph.inputs)
    values = _eager_values(graph, samples[0], device)
    named = [k for k, node in enumerate(graph.nodes) if node.attrs and argument_named(message, node.attr_dict)]
    for k in named + [k for k in range(len(graph.nodes)) if k not in named]:
        node = graph.nodes[k]
        args = list(dict.fromkeys(node.args))
        alone = Graph(tuple(specs[a] for a in args), (Node(node.op, tuple(args.index(a) for a in node.args), node.attrs),), (len(args),))
        got = evaluate(alone, [[values[a] for a in args]], target, device)
        if got.verdict is Verdict.UNSUPPORTED and crash_fingerprint(got.detail) == fingerprint:
            dtype = specs[n_in + k].dtype
            evidence = [f"`{node.op}` alone, on eager's values of its inputs, draws the same refusal"]
            return Analysis(0, "", evidence, node.op, dtype, culprit=Culprit(k, node.op, dtype, Verdict.UNSUPPORTED.value, LOCATED))
    return None


def _eager_values(graph: Graph, sample: list[torch.Tensor], device: str) -> list[torch.Tensor]:
    """Eager's value of every input and node on one sample."""
    every = Graph(graph.inputs, graph.nodes, tuple(range(graph.n_values)))
    inputs = [x.to(device) for x in sample]
    with torch.no_grad():
        found = compile_source(lower(every))(*laid_out(inputs, graph.inputs))
    return list(inputs) + [v.detach() for v in list(found)[len(inputs) :]]
