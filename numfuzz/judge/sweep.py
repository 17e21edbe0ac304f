"""A sweep: one program run on its inputs scaled by powers of two, to see how the error moves with magnitude.

Herbie draws error against input; this is that picture's data. Every point is the same sample
with every input multiplied by one factor and rounded to its dtype (points that overflow an
input are skipped). The target compiles once for the whole sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from numfuzz.judge.execute import evaluate
from numfuzz.judge.oracle import ulp_error
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype
from numfuzz.program.ir import Graph
from numfuzz.program.model_scale import JUDGE_ELEMENTS, value_elements
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import round_to
from numfuzz.targets import Target

DEFAULT_EXPONENTS = tuple(range(-40, 9, 2))


@dataclass
class Sweep:
    """Per point (one factor) and element of output `output`: magnitudes, reference and both errors."""

    factors: np.ndarray  # (points,)
    magnitude: np.ndarray  # (points, elements): |input| of the first input, broadcast to the output where it can
    reference: np.ndarray  # (points, elements), float64
    eager_ulp: np.ndarray
    target_ulp: np.ndarray
    eager_rel: np.ndarray
    target_rel: np.ndarray
    detail: str = ""  # why the sweep is empty, when it is

    @property
    def empty(self) -> bool:
        return self.factors.size == 0


def _empty(detail: str) -> Sweep:
    nothing = np.zeros((0, 0))
    return Sweep(np.zeros(0), nothing, nothing, nothing, nothing, nothing, nothing, detail)


def sweep(graph: Graph, sample: list[torch.Tensor], target: Target, device: str, output: int = 0, exponents: tuple[int, ...] = DEFAULT_EXPONENTS) -> Sweep:
    """Run `graph` on `sample` scaled by 2**e for each exponent; errors of output `output` at every point.

    A model-sized program takes every k-th exponent only, so that its points hold no more elements
    than a case may (`model_scale.JUDGE_ELEMENTS`): each point is the whole program once more."""
    specs = graph.inputs
    room = max(JUDGE_ELEMENTS // value_elements(graph), 2)
    if len(exponents) > room:  # evenly spaced, both ends kept
        exponents = tuple(exponents[round(i * (len(exponents) - 1) / (room - 1))] for i in range(room))
    points, factors = [], []
    for e in exponents:
        # indices (integer inputs) are not values to scale
        scaled = [round_to(x.to(torch.float64).numpy() * 2.0**e, spec) if x.is_floating_point() else x for x, spec in zip(sample, specs)]
        if all(bool(torch.isfinite(s).all()) for s in scaled):
            points.append(scaled)
            factors.append(2.0**e)
    if not points:
        return _empty("every scaled input overflows its dtype")
    outcome = evaluate(graph, points, target, device)
    if outcome.runs is None:
        return _empty(f"the target gave {outcome.verdict.value}" + (f": {outcome.detail}" if outcome.detail else ""))
    fmt = check_dtype(infer_specs(graph)[graph.outputs[output]].dtype)
    rows = {
        who: np.stack([run[output].detach().to("cpu", torch.float64).reshape(-1).numpy() for run in getattr(outcome.runs, who)])
        for who in ("reference", "eager", "target")
    }
    ref = rows["reference"]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        rel = {who: np.abs(rows[who] - ref) / np.maximum(np.abs(ref), np.finfo(np.float64).tiny) for who in ("eager", "target")}
    first = np.stack([np.abs(p[0].to(torch.float64)).reshape(-1).numpy() for p in points])
    magnitude = first if first.shape == ref.shape else np.broadcast_to(first.max(axis=1, keepdims=True), ref.shape)
    return Sweep(
        np.asarray(factors),
        magnitude,
        ref,
        ulp_error(rows["eager"], ref, fmt),
        ulp_error(rows["target"], ref, fmt),
        rel["eager"],
        rel["target"],
        "" if outcome.verdict is not Verdict.INVALID else "no point has a finite reference",
    )
