"""Is a non-finite output the rest of the program's, at a culprit value within its bound?

A `nonfinite` finding stays a finding whatever the bound, because a compiler
must not turn a finite result into inf or NaN. But where the op the difference starts at is
within its documented bound, and the ops after it turn that value into inf or NaN when they are
computed exactly, the non-finite value is the conditioning of the program, not a compiler's
error: `digamma(log(abs(cos(x))))` is infinite wherever `cos` rounds to 1, and a cos within its
bound may. The test: the program from the culprit on, in float64, fed the target's culprit
value (and the exact values of every other input), is non-finite at every element the target
made non-finite. No compile: the float64 reference only. Whether the culprit is within its bound
is the rule's to say (`judge.rules.NonfiniteRest`): this probe is a fact, measured whatever the bounds.
"""

from __future__ import annotations

import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.localize import probe_values
from numfuzz.program.graph_edit import cut, index_after_cut
from numfuzz.program.ops import infer_specs


def nonfinite_rest_evidence(ev: Evidence) -> str | None:
    """Evidence that the exact rest of the program makes the target's non-finite elements from its culprit value; None otherwise."""
    c, graph = ev.culprit, ev.graph
    n_in, out = len(graph.inputs), graph.outputs[ev.output]
    if c is None or ev.probe is None or ev.suffix is not None or n_in + c.node == out or c.node not in ev.probe.nodes:
        return None
    rest = cut(graph, infer_specs(graph), {c.node})
    position = rest.outputs.index(index_after_cut(graph, [c.node], out))
    program = CompiledProgram(rest, ev.target, ev.device)
    culprit_values = probe_values(ev.probe, graph, ev.samples, "target", n_in + c.node)
    made = 0
    for sample, value, ref, got in zip(ev.samples, culprit_values, ev.outcome.runs.reference, ev.outcome.runs.target):
        new = ~torch.isfinite(got[ev.output]) & torch.isfinite(ref[ev.output].to(got[ev.output].device))
        if not bool(new.any()):
            continue
        exact = program.reference(list(sample) + [value])[position].to(new.device)
        if bool((new & torch.isfinite(exact)).any()):
            return None  # an element the exact rest keeps finite: the target's own doing
        made += int(new.sum())
    if not made:
        return None
    return (
        f"the program after `{c.op}`, computed exactly in float64 from the target's `{c.op}` values, is non-finite "
        f"at all {made} elements the target made non-finite: the non-finite result is the program's conditioning at a value within its bound"
    )
