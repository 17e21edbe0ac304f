"""Whether a gradient's NaN or inf that the target drops reaches those elements only through a zero factor.

A backward formula may multiply a NaN by a zero the math does not have: causal attention's key gradient sums over every
query row, the masked ones with a weight of 0, so a NaN query row makes eager's (and the float64 reference's, the same
kernel) gradient NaN at keys that row never attends to. A target that computes the masked terms as 0 gives the key
gradient the math gives. The test: replaced by 0 and by 1 in turn, the non-finite inputs (and upstream gradients) leave
the float64 reference finite and unchanged at every element the target lost, and there it is the target's value: those
elements do not depend on the non-finite values at all. Gradients only: in a program's own forward, `x * 0` of a NaN is
NaN by the program's word, and a compiler that folds it drops a NaN the program asked for.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.compiled import reference_flat
from numfuzz.judge.execute import Outcome
from numfuzz.judge.nonfinite_class import class_lost
from numfuzz.judge.oracle import ulp_error
from numfuzz.program.dtypes import check_dtype
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs

REPLACEMENTS = (0.0, 1.0)
AGREES_ULP = 1.0  # the target's value against the reference made finite: within one rounding of the gradient's dtype


def _replaced(rows: list[list[torch.Tensor]], value: float) -> list[list[torch.Tensor]]:
    return [[torch.nan_to_num(x, nan=value, posinf=value, neginf=value) if x.is_floating_point() else x for x in row] for row in rows]


def nan_unreached_evidence(graph: Graph, samples: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], outcome: Outcome, flagged: int) -> str | None:
    """Evidence that the gradient `flagged` (a judged value past the outputs) lost its non-finite class only where the
    non-finite inputs do not reach it; None where they do, or nothing non-finite was given."""
    runs = outcome.runs
    given = [x for row in samples + upstream for x in row if x.is_floating_point()]
    if runs is None or flagged < len(graph.outputs) or all(bool(torch.isfinite(x).all()) for x in given):
        return None
    ref, eager, got = runs.flat("reference", flagged), runs.flat("eager", flagged), runs.flat("target", flagged)
    lost = class_lost(ref, eager, got)
    if not lost.any():
        return None
    fmt = check_dtype(infer_specs(graph)[flagged - len(graph.outputs)].dtype)
    made = [reference_flat(graph, _replaced(samples, v), flagged, upstream=_replaced(upstream, v))[lost] for v in REPLACEMENTS]
    if any(m.size != got[lost].size or not np.isfinite(m).all() for m in made) or not np.array_equal(made[0], made[1]):
        return None
    if float(np.max(ulp_error(got[lost], made[0], fmt), initial=0.0)) > AGREES_ULP:
        return None
    return (
        f"at the {int(lost.sum())} element(s) where eager and float64 give NaN or inf and the target does not, the float64 reference with "
        f"every non-finite input replaced by {REPLACEMENTS[0]:g} or by {REPLACEMENTS[1]:g} is finite, the same, and the target's value: "
        "those elements do not depend on the non-finite inputs, which reach them in eager only through a zero factor of the backward formula"
    )
