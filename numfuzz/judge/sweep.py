"""A sweep: one program run on its inputs scaled by powers of two, to see how the error moves with magnitude.

Herbie draws error against input; this is that picture's data, a point at a time. Every point
is the same sample with every input multiplied by one factor and rounded to its dtype (points
that overflow an input are skipped). The target compiles once for the whole sweep, and the
points are run a few at a time (as many as `chunks.CHUNK_ELEMENTS` values hold, at least one):
a point of a model-sized program is the whole program again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import torch

from numfuzz.judge.chunks import chunk_elements
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, run_sides, unlike_runs
from numfuzz.program.ir import Graph, GraphError
from numfuzz.program.model_scale import JUDGE_ELEMENTS, value_elements
from numfuzz.program.values import round_to
from numfuzz.targets import Target

DEFAULT_EXPONENTS = tuple(range(-40, 9, 2))


@dataclass
class SweepPoint:
    """One factor's point, per element of the swept output: the float64 reference and each side's relative error."""

    factor: float
    reference: np.ndarray
    eager_rel: np.ndarray
    target_rel: np.ndarray


class SweepFailed(Exception):
    """The sweep has no points: every scaled input overflows, or the target failed on a point (the message says which).
    Raised after any points already given: a reader keeps nothing of them (the sweep is all its points or none)."""


def sweep(
    graph: Graph, sample: list[torch.Tensor], target: Target, device: str, output: int = 0, exponents: tuple[int, ...] = DEFAULT_EXPONENTS
) -> Iterator[SweepPoint]:
    """Run `graph` on `sample` scaled by 2**e for each exponent; each point's errors of output `output`, in order.

    A model-sized program takes every k-th exponent only, so that its points hold no more elements
    than a case may (`model_scale.JUDGE_ELEMENTS`): each point is the whole program once more."""
    room = max(JUDGE_ELEMENTS // value_elements(graph), 2)
    if len(exponents) > room:  # evenly spaced, both ends kept
        exponents = tuple(exponents[round(i * (len(exponents) - 1) / (room - 1))] for i in range(room))
    scaled = [(2.0**e, point) for e in exponents if (point := _scaled(sample, graph, e)) is not None]
    if not scaled:
        raise SweepFailed("every scaled input overflows its dtype")
    try:
        program = CompiledProgram(graph, target, device)
    except GraphError as exc:
        raise SweepFailed(f"ill-typed graph: {exc}") from None
    at_once = max(1, chunk_elements() // value_elements(graph))
    for first in range(0, len(scaled), at_once):
        some = scaled[first : first + at_once]
        ran = run_sides(program, [point for _, point in some], rerun=first == 0)  # the runs only: no verdict is wanted
        failed = ran if isinstance(ran, Outcome) else unlike_runs(graph, ran.runs.eager, ran.runs.target, ran.again)
        if failed is not None:
            raise SweepFailed(f"the target gave {failed.verdict.value}" + (f": {failed.detail}" if failed.detail else ""))
        for i, (factor, _) in enumerate(some):
            yield _point(factor, *(getattr(ran.runs, who)[i][output] for who in ("reference", "eager", "target")))
        del ran  # before the next points are run


def _scaled(sample: list[torch.Tensor], graph: Graph, e: int) -> list[torch.Tensor] | None:
    """The sample with every float input times 2**e rounded to its dtype (indices are not values to scale); None where one overflows."""
    scaled = [round_to(x.to(torch.float64).numpy() * 2.0**e, spec) if x.is_floating_point() else x for x, spec in zip(sample, graph.inputs)]
    return scaled if all(bool(torch.isfinite(s).all()) for s in scaled) else None


def _point(factor: float, reference: torch.Tensor, eager: torch.Tensor, target: torch.Tensor) -> SweepPoint:
    ref = reference.detach().to("cpu", torch.float64).reshape(-1).numpy()
    rel = {}
    for who, run in (("eager", eager), ("target", target)):
        row = run.detach().to("cpu", torch.float64).reshape(-1).numpy()
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            rel[who] = np.abs(row - ref) / np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    return SweepPoint(factor, ref, rel["eager"], rel["target"])
