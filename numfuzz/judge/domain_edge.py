"""Is a non-finite value the edge of its op's domain, reached by an input a fused kernel did not round?

A fused kernel may read a bf16/fp16 value the program made before its rounding (cast elision,
intended by default). Where the exact value lies on the edge of the next op's domain (acosh at 1,
sqrt and log at 0) and the unrounded one a hair beyond it, the op gives NaN or inf where eager,
which rounded first, lands on the edge: `acosh(sinc(14) + 1)` is NaN compiled and 0 eager. The
test: the culprit op computed exactly on the target's inputs to it, each moved by at most half an ULP
of its dtype (what its rounding would have moved it), is non-finite at every element only the target
made non-finite. Only where every float input of the culprit is a narrow value the program made
(`evidence.inputs_made_narrow`): a given input is read as given. No compile: float64 only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import torch

from numfuzz.judge.evidence import Evidence
from numfuzz.judge.oracle import ulp
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.ops import infer_specs

UNROUNDED_ULP = 0.5  # how far a value's own rounding moves it, in ULPs of its dtype
MOST_INPUTS = 3  # inputs moved in every combination of directions: 3**3 points


def _moved_inputs(ev: Evidence) -> tuple[list[int], list[str]] | None:
    """The culprit's float inputs to move (their positions and dtypes), where every one is a narrow value the program
    made and the culprit is seen alone; None where the test does not apply."""
    c, graph = ev.culprit, ev.graph
    if c is None or ev.suffix is not None or not ev.inputs_seen() or not ev.inputs_made_narrow():
        return None
    specs = infer_specs(graph)
    args = graph.nodes[c.node].args
    moving = [i for i, a in enumerate(args) if not is_integer(specs[a].dtype)]
    if not moving or len(moving) > MOST_INPUTS:
        return None
    return moving, [specs[args[i]].dtype for i in moving]


def _at_corners(fn, out: int, row: list[torch.Tensor], shape: torch.Size, moving: list[int], dtypes: list[str]) -> Iterator[np.ndarray]:
    """The op's exact values (flat, float64) at its inputs `row`, each input in `moving` moved down, not, or up by
    UNROUNDED_ULP of its dtype, in every combination."""
    x64 = [a.detach().to("cpu", torch.float64) for a in row]
    steps = [UNROUNDED_ULP * torch.from_numpy(ulp(x64[i].numpy(), check_dtype(d))) for i, d in zip(moving, dtypes)]
    for signs in itertools.product((-1.0, 0.0, 1.0), repeat=len(moving)):
        moved = list(x64)
        for i, step, sign in zip(moving, steps, signs):
            moved[i] = x64[i] + sign * step
        with torch.no_grad():
            yield fn(*moved)[out].expand(shape).reshape(-1).numpy()


def domain_edge_evidence(ev: Evidence) -> str | None:
    """The evidence where the target's non-finite culprit values are its op's exact values at inputs within their
    rounding; None otherwise."""
    found = _moved_inputs(ev)
    if found is None:
        return None
    c, fn, out = ev.culprit, ev.reference_fn(), ev.alone_output()
    inputs, values = ev.side("target")
    _, eager = ev.side("eager")
    made = 0
    for row, got, kept in zip(inputs, values, eager):
        only_target = (~torch.isfinite(got) & torch.isfinite(kept)).detach().cpu().reshape(-1).numpy()
        if not only_target.any():
            continue
        reached = np.zeros_like(only_target)
        for exact in _at_corners(fn, out, row, got.shape, *found):
            reached |= ~np.isfinite(exact)
        if not bool(reached[only_target].all()):
            return None  # an element no input within its rounding makes non-finite: the target's own doing
        made += int(only_target.sum())
    if not made:
        return None
    return (
        f"`{c.op}` ({c.dtype}) computed exactly on the target's inputs to it, each within half an ULP of its dtype (a fused kernel "
        f"may read them before rounding them), is non-finite at all {made} elements the target made non-finite: its domain's edge"
    )


def explained_by_unrounded_inputs(ev: Evidence) -> bool:
    """Every target value at the culprit lies within the op's exact values at its inputs each moved by at most half an
    ULP of its dtype (what a fused kernel that reads them before their rounding sees), widened by half an output ULP for
    the value's own rounding: where it does, the target's error past eager's is its inputs' skipped rounding, not one
    more rounding in the narrow dtype (`causes.low_precision`). Only where every float input of the culprit is a narrow
    value the program made (`evidence.inputs_made_narrow`), as `domain_edge_evidence`; the op's values at the corners
    of the moves bound its values between them for an op monotone in each input that near (a pointwise one)."""
    found = _moved_inputs(ev)
    if found is None:
        return False
    fn, out, fmt = ev.reference_fn(), ev.alone_output(), check_dtype(ev.culprit.dtype)
    inputs, values = ev.side("target")
    for row, got in zip(inputs, values):
        got64 = got.detach().to("cpu", torch.float64).reshape(-1).numpy()
        low, high = np.full(got64.shape, np.inf), np.full(got64.shape, -np.inf)
        for exact in _at_corners(fn, out, row, got.shape, *found):
            low, high = np.fmin(low, exact), np.fmax(high, exact)
        spacing = [ulp(np.where(np.isfinite(v), v, 0.0), fmt) for v in (got64, low, high)]  # the value's own rounding, at either binade
        half = UNROUNDED_ULP * np.maximum.reduce(spacing)
        finite = np.isfinite(low) & np.isfinite(high) & np.isfinite(got64)
        if not np.all((got64[finite] >= low[finite] - half[finite]) & (got64[finite] <= high[finite] + half[finite])):
            return False
    return True
