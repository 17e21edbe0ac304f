"""Rounding error of a gradient finding at its culprit: is the target's local gradient the exact backward of inputs a few ULP away?

A gradient finding's culprit (`judge.gradient_analysis`) is an op whose backward, cut out and run
alone on eager's forward values and eager's gradient of its output, the target gets less
accurate than eager. That backward is an op of its own, the vector-Jacobian product

    vjp(x_1, .., x_k, g) = (g . df/dx_1, .., g . df/dx_k)

whose float64 reference is autograd of the op's float64 reference, and whose derivatives (for
the input move that explains a value) are autograd again: a double backward. The measurement
and the rule are the forward's (`judge.rounding_error`) with this op in place of the forward
one: the WORST elements of each input gradient the target gets less accurate, the move counted
in ULPs of the forward inputs and of the upstream gradient, against the op's backward bound
(`Bounds.backward_allowance`). Both sides get the same inputs (the cut feeds eager's values), so
eager's figure is what eager's own backward kernel needs.
"""

from __future__ import annotations

from typing import Callable

import torch

from numfuzz.judge.bounds import Bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.rounding_error import METHOD, measure_side, worst_positions
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs


def vjp_reference(alone: Graph) -> Callable:
    """The float64 backward of a one-op graph: (inputs..., upstream gradient) -> the gradient of each input."""
    fn = compile_source(lower(alone, reference=True))
    n = len(alone.inputs)

    def vjp(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        with torch.enable_grad():  # also where the move is checked, under no_grad
            xs = [x if x.requires_grad or not x.is_floating_point() else x.detach().requires_grad_(True) for x in args[:n]]
            floats = [x for x in xs if x.requires_grad]  # an integer or bool input (an index, a mask) has no gradient
            found = iter(torch.autograd.grad(fn(*xs)[0], floats, args[n], create_graph=True, allow_unused=True) if floats else ())
            grads = [next(found) if x.requires_grad else None for x in xs]
        return tuple(torch.zeros_like(x, dtype=torch.float64) if d is None else d for x, d in zip(xs, grads))

    return vjp


def measure_gradient(
    alone: Graph, rows: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], local: Outcome, bounds: Bounds, device: str
) -> RoundingRecord | None:
    """The rounding-error record of the culprit's backward, for each input gradient the target gets less
    accurate: the worst one's at the top, the others' under `also`; None: nothing to measure.

    `alone` is the culprit op with its arguments as inputs, `rows` eager's values of them per
    sample, `upstream` eager's gradient of its output, `local` the judgement of that cut with
    its runs (outputs first, then each input's gradient). The rule judges every one of them.
    """
    if local.runs is None:
        return None
    n_out = len(alone.outputs)
    worse = [o.index - n_out for o in local.outputs[n_out:] if o.verdict == Verdict.LESS_ACCURATE.value]
    if not worse:
        return None
    order = sorted(worse, key=lambda k: local.outputs[n_out + k].target_max_ulp or 0.0, reverse=True)
    records = [_measure_one(alone, rows, upstream, local, bounds, device, i) for i in order]
    first, others = records[0], records[1:]
    if others and "error" not in first:
        first["also"] = [{k: r[k] for k in ("dtype", "gradient_of", "n", "target", "eager")} for r in others if "error" not in r]
        unmeasured = [r["gradient_of"] for r in others if "error" in r]
        if unmeasured:  # a gradient the rule cannot judge: none of them is excused
            first["unmeasured"] = unmeasured
    return RoundingRecord.from_json(first)


def _measure_one(alone: Graph, rows, upstream, local: Outcome, bounds: Bounds, device: str, i: int) -> dict:
    """The record of one input's gradient (its position `i` among the op's deduplicated arguments)."""
    n_out = len(alone.outputs)
    op = alone.nodes[0].op
    dtype = alone.inputs[i].dtype
    out_dtype = infer_specs(alone)[alone.outputs[0]].dtype
    n = max(max(s.shape, default=1) for s in alone.inputs)  # the longest sum a backward can form (bounds that grow with it)
    allowance = bounds.backward_allowance(op, dtype, device, n)
    vjp = vjp_reference(alone)
    # an integer or bool input (an index, a mask) is never moved: any format will do for it, as in the forward's measure
    in_fmts = [check_dtype("fp64" if is_integer(s.dtype) else s.dtype) for s in alone.inputs] + [check_dtype(out_dtype)]
    out_fmt = check_dtype(dtype)
    inputs = [[*row, grads[0]] for row, grads in zip(rows, upstream)]
    got = [[run[n_out + i] for run in getattr(local.runs, who)] for who in ("target", "eager")]
    try:
        positions = worst_positions(vjp, i, inputs, got[0], out_fmt)
        target, eager = (measure_side(vjp, i, inputs, values, in_fmts, out_fmt, positions) for values in got)
    except RuntimeError as exc:  # an op whose float64 reference autograd cannot differentiate twice
        return {"op": op, "dtype": dtype, "backward": True, "gradient_of": i, "error": f"not measured: {str(exc).splitlines()[0][:200]}"}
    return {
        "op": op,
        "dtype": dtype,
        "backward": True,  # the op's backward, judged against `Bounds.backward_allowance`
        "gradient_of": i,  # which of the op's inputs (its deduplicated arguments) the gradient is of
        "device": "cuda" if str(device).startswith("cuda") else "cpu",
        "n": n,
        "method": f"{METHOD}; the op is the backward (inputs and upstream gradient -> input gradient), its derivatives a double backward",
        "measured": target.measured,
        "suffix": False,
        "all_elements": False,
        "bound": allowance.to_json(),
        "target": target.summary(),
        "eager": eager.summary(),
    }
