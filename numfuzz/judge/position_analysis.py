"""Is a position-dependent result each position's op within its bound, amplified by the ops after it?

The position check (`judge.position`) flags the same values at two positions giving results
further apart than kernel libraries document. But a vector body and a scalar tail are two
implementations, each allowed its bound: `fmod(x, tanh(cos(x)))` at x = 2 has tanh(cos(x)) one
ULP apart in the body and the tail, each within 0.4 ULP, and fmod's quotient of 5 makes that 40
ULP of the result. One compile, the probe of the flagged output's cone (`judge.localize`), on
the sample that shows it: the first op at which the two positions part is judged on its own, as
the culprit of a finding is. The partings are facts; the rule `position_within_bound`
(`judge.rules`) calls the difference rounding where the target's value is within the op's bound
at each of them.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import POSITION_PARTING
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome, Runs
from numfuzz.judge.facts import Analysis, Culprit, Parting
from numfuzz.judge.localize import Probe, local_errors, run_probe
from numfuzz.judge.position import ends_along, position_dependence, repeated_block, same_values
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float64).numpy()


def _flagged(samples: list[list[torch.Tensor]], runs: Runs, out_dtypes: list[str]) -> tuple[int, int] | None:
    """(sample, output) of the first position-dependent result, as the check finds it."""
    for i, sample in enumerate(samples):
        for k, dtype in enumerate(out_dtypes):
            one = {who: [(getattr(runs, who)[i][k],)] for who in ("eager", "reference", "target")}
            if position_dependence([sample], one["eager"], one["reference"], one["target"], [dtype]) is not None:
                return i, k
    return None


def _parting(probe: Probe, position: int, axis: int, size: int, block: int) -> bool:
    """Do the target's values of the probe's `position` differ at the two positions where the reference's are equal and finite?"""
    ref, got = (ends_along(_numpy(getattr(probe.runs, who)[0][position]), axis, size, block) for who in ("reference", "target"))
    if ref is None or got is None:
        return False
    (r0, r1), (t0, t1) = ref, got
    return bool(((r0 == r1) & np.isfinite(r0) & ~same_values(t0, t1)).any())


def position_partings(
    graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, outcome: Outcome
) -> tuple[Culprit, int, list[Parting]] | None:
    """The op where the positions first part, the flagged output, and each axis's parting; None where no probe shows one."""
    specs = infer_specs(graph)
    out_dtypes = [specs[v].dtype for v in graph.outputs]
    flagged = _flagged(samples, outcome.runs, out_dtypes) if outcome.runs is not None else None
    if flagged is None:
        return None
    i, output = flagged
    sample = samples[i]
    arrays = [_numpy(x) for x in sample]
    rank = max((a.ndim for a in arrays), default=0)
    probe = run_probe(graph, [sample], target, device, output)
    if not isinstance(probe, Probe):
        return None
    n_in, last = len(graph.inputs), len(probe.nodes) - 1
    partings, culprit = [], None
    backend = "cuda" if str(device).startswith("cuda") else "cpu"
    for axis in sorted({-1, -rank}) if rank else ():
        found = repeated_block(arrays, axis)
        if found is None or not _parting(probe, last, axis, *found):
            continue  # not this axis, or exposing the values changed what the compiler fused
        position = next(p for p in range(len(probe.nodes)) if _parting(probe, p, axis, *found))  # the output's own op parts, at the latest
        k = probe.nodes[position]
        op, dtype = graph.nodes[k].op, specs[n_in + k].dtype
        local = local_errors(graph, [sample], probe, k)
        partings.append(Parting(op, dtype, backend, float(local.target_max_ulp), float(local.eager_max_ulp)))
        culprit = culprit or Culprit(k, op, dtype, outcome.verdict.value, "probe")
    return (culprit, output, partings) if culprit is not None else None


def position_parting(ev: Evidence, bounds: Bounds) -> Analysis | None:
    """The facts of a position-dependent result (without gradients): where its positions part. None for any other outcome."""
    outcome = ev.outcome
    if outcome.oracle is not Verdict.POSITION_DEPENDENT or ev.upstream is not None or outcome.runs is None:
        return None
    found = position_partings(ev.graph, ev.samples, ev.target, ev.device, outcome)
    if found is None:
        return None
    culprit, output, partings = found
    evidence = [p.sentence() for p in partings]
    return Analysis(output, cause=POSITION_PARTING.name, evidence=evidence, op=culprit.op, dtype=culprit.dtype, culprit=culprit, partings=partings)
