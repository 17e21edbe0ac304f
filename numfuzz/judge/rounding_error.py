"""Rounding error at the culprit op (Higham's backward error): is each side's value the exact result of inputs within a few ULP?

A less accurate result is not yet a wrong one. Where an op is ill conditioned (a sum that
cancels), a value many ULPs from float64 can be the op applied exactly to inputs a fraction of
an ULP away: the compiler rounded differently, it did not compute a worse formula (Higham,
Accuracy and Stability of Numerical Algorithms, ch. 1). Measured here, in float64, for the
culprit op alone on each side's own inputs (as `causes.culprit_local_errors` judges it):

* the componentwise relative condition  kappa = sum_i |df/dx_i| |x_i| / |f(x)|;
* the smallest input perturbation, in ULPs of each input's dtype, that explains the value, to
  first order, after allowing the value its final rounding (half an ULP of the output dtype):
      needed       = max(0, |y - f(x)| - ulp_out(y)/2) / sum_i |df/dx_i| ulp(x_i)
      needed_i     = max(0, |y - f(x)| - ulp_out(y)/2) / (|df/dx_i| ulp(x_i))   (inf where df/dx_i = 0)
  and checked: the float64 op at the inputs so moved must give the value to within its rounding
  plus half the slack, else `needed` is inf (first order misleads where the condition is huge).
  An infinite or NaN derivative also makes it inf: the value stays unexplained.

The derivatives come from float64 autograd of the op's own float64 reference. For a pointwise
op every element is measured, the samples stacked (each input expanded to the output's shape, so
that each element has its own copy), one forward and backward for all of them where they fit
`chunks.CHUNK_ELEMENTS` (every ordinary case), else per slab of whole samples or of one sample's
rows; for any other op, the WORST elements by forward error, one backward each. Scalar
attributes (`value=`, an exponent) are constants, not inputs.
Where autograd has no derivative for the op (torch marks the special polynomials non-differentiable), forward
differences in float64 stand in for it (`judge.rounding_partials`). A float64 program's op, pointwise or not, takes its
exact values and its values at the moved inputs from the fine reference where it answers (`judge.rounding_fine`): float64
rounds there as much as it judges, and loses a move of a fraction of an ULP.

The judgement against a documented bound (`numfuzz.judge.bounds`) keeps only the Pareto front
of (forward error, needed) over the measured elements, so that it can be re-judged against
another bounds file from the stored record alone. `record_within` is that judgement, the one
place a record meets a bound: the verdict rules (`judge.rules`) and the record's words
(`judge.rounding_error_text`) both ask it.

Where the op's float attributes change when rounded to fp32 (ATen's vectorised kernels take a
Python-float exponent or `value=` in fp32), the record also keeps the front measured against the
op with them so rounded (`fp32_scalars`); the value is within its bound where either front is.
"""

from __future__ import annotations

import math
from typing import Iterator

import numpy as np
import torch

from numfuzz.judge.bounds import FP32_MANTISSA, Bounds
from numfuzz.judge.chunks import chunk_elements
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.oracle import ulp
from numfuzz.judge.rounding_fine import fine_reference, finer_pointwise
from numfuzz.judge.rounding_partials import as_float64, difference_partials, element_difference_partials, partials_or_differences, with_leaves
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.rounding_side import WORST, Element, Side, key_nan_low, nan_low
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.families import family_of
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs, lookup

METHOD = "first order; derivatives by float64 autograd of the op's float64 reference; the value's final rounding (half an output ULP) allowed"


def reduced_length(graph: Graph, k: int) -> int:
    """How many elements node k combines per output element (for bounds that grow with it): its op's `OpSpec.terms`."""
    node, specs = graph.nodes[k], infer_specs(graph)
    return lookup(node.op).terms([specs[a] for a in node.args], node.attr_dict)


def measure(ev: Evidence, bounds: Bounds) -> RoundingRecord | None:
    """The rounding-error record of the culprit, or None where it cannot be measured.

    `bounds` only name the bound the record was measured under (its words); `record_within` judges it under any."""
    c = ev.culprit
    if c is None or not ev.inputs_seen():
        return None  # the culprit's inputs were never seen (no probe)
    alone, out = ev.alone(), ev.alone_output()
    pointwise = ev.suffix is None and family_of(lookup(c.op)).pointwise
    n = reduced_length(ev.graph, c.node)
    allowance = bounds.allowance(c.op, c.dtype, ev.device, n)
    fn = ev.reference_fn()
    # an index (integer input) has no partial derivative, so it is never moved: any format will do for it
    in_fmts = [check_dtype("fp64" if is_integer(s.dtype) else s.dtype) for s in alone.inputs]
    out_dtype = infer_specs(alone)[alone.outputs[out]].dtype
    out_fmt = check_dtype(out_dtype)
    suffix_ops = [[node.op, reduced_length(alone, k)] for k, node in enumerate(alone.nodes)] if ev.suffix is not None else None
    if suffix_ops is not None:  # the program from the culprit on, as one op: the loosest bound of its ops, in its output's dtype
        allowance = bounds.loosest(suffix_ops, out_dtype, ev.device)
    t_inputs, t_values = ev.side("target")
    e_inputs, e_values = ev.side("eager")
    # where eager's value is not finite either, the element says nothing against the target
    skip = np.concatenate([~torch.isfinite(v.detach().cpu()).reshape(-1).numpy() for v in e_values])
    fp32_scalars = None
    try:
        positions = None if pointwise else worst_positions(fn, out, t_inputs, t_values, out_fmt)
        if positions is not None:
            numel = max(1, t_values[0].numel())
            positions = [(s, j) for s, j in positions if not skip[s * numel + j]]
        fine = fine_reference(alone, out)
        target = measure_side(fn, out, t_inputs, t_values, in_fmts, out_fmt, positions, skip, fine)
        eager = measure_side(fn, out, e_inputs, e_values, in_fmts, out_fmt, positions, fine=fine)
        rounded = _scalars_as_fp32(alone) if ev.suffix is None and out_fmt.mantissa_bits <= FP32_MANTISSA else None
        if rounded is not None:
            fn32 = compile_source(lower(rounded, reference=True))
            target32 = measure_side(fn32, out, t_inputs, t_values, in_fmts, out_fmt, positions)
            eager32 = measure_side(fn32, out, e_inputs, e_values, in_fmts, out_fmt, positions)
            fp32_scalars = {"target": target32.summary(), "eager": eager32.summary()}
    except RuntimeError as exc:  # an op autograd cannot differentiate here (a cast's rounding, say)
        return RoundingRecord.from_json({"op": c.op, "dtype": c.dtype, "error": f"not measured: {str(exc).splitlines()[0][:200]}"})
    return RoundingRecord.from_json(
        {
            "op": c.op,
            "dtype": c.dtype,
            "device": "cuda" if str(ev.device).startswith("cuda") else "cpu",
            "n": n,
            "method": METHOD,
            "measured": target.measured,
            "suffix": ev.suffix is not None,  # located by cutting: the fused program from the op on, taken as one op
            **({"unrounded_inputs": True} if ev.inputs_made_narrow() else {}),
            **({"suffix_ops": suffix_ops, "bound_dtype": out_dtype} if suffix_ops is not None else {}),
            "all_elements": positions is None,
            "bound": allowance.to_json(),  # the bound it was measured under; judged again, `rounding_record.allowance_of` gives today's
            "target": target.summary(),
            "eager": eager.summary(),
            # the op with its float attributes rounded to fp32, as ATen's vectorised kernels take them
            **({"fp32_scalars": fp32_scalars} if fp32_scalars is not None else {}),
        }
    )


FP32_MAX = float(np.finfo(np.float32).max)  # past it a scalar has no fp32 value to round to (a bound beyond the range)


def _scalars_as_fp32(alone: Graph) -> Graph | None:
    """The one-op graph with its float attributes rounded to fp32 (None: none change). ATen's vectorised kernels take
    a Python-float exponent or `value=` in fp32, eager's small tensors in double: a value exact either way is rounding."""
    (node,) = alone.nodes
    attrs = {k: float(np.float32(v)) if isinstance(v, float) and abs(v) <= FP32_MAX else v for k, v in node.attrs}
    if attrs == dict(node.attrs):
        return None
    return Graph(alone.inputs, (Node.make(node.op, node.args, **attrs),), alone.outputs)


def worst_positions(fn, out: int, inputs: list[list[torch.Tensor]], values: list[torch.Tensor], out_fmt) -> list[tuple[int, int]]:
    """(sample, element) of the WORST elements by forward error in output ULPs (the first of equals first)."""
    found = []
    with torch.no_grad():
        for s, (args, value) in enumerate(zip(inputs, values)):
            exact = fn(*[as_float64(a) for a in args])[out].reshape(-1).numpy()
            got = value.detach().to("cpu", torch.float64).reshape(-1).numpy()
            err = _forward(got, exact, out_fmt)
            where = np.flatnonzero(np.isfinite(exact) & (np.abs(exact) <= out_fmt.max_value))
            top = where[np.argsort(-nan_low(err[where]), kind="stable")[:WORST]]  # this sample's candidates, not every element
            found += [(float(err[j]), s, int(j)) for j in top]
    found.sort(key=lambda t: key_nan_low(t[0]), reverse=True)
    return [(s, j) for _, s, j in found[:WORST]]


def _forward(got: np.ndarray, exact: np.ndarray, fmt, unit: np.ndarray | None = None) -> np.ndarray:
    """The error in ULPs of the exact value (or of `unit`, the spacing given per element)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs(got - exact) / (ulp(exact, fmt) if unit is None else unit)
    return np.where(np.isfinite(got), err, np.inf)


def _moved(x: torch.Tensor, delta: np.ndarray) -> torch.Tensor:
    """An input moved by `delta` (its shape, flat); an integer input is never moved."""
    return x.detach() + torch.from_numpy(delta).reshape(x.shape) if x.is_floating_point() else x.detach()


def measure_side(fn, out: int, inputs, values, in_fmts, out_fmt, positions: list[tuple[int, int]] | None, skip: np.ndarray | None = None, fine=None) -> Side:
    """`fine` (`fine_reference`): the exact values and the moved inputs' values from it, where it answers."""
    side = Side()
    if positions is None:  # pointwise: every sample at once, each input expanded to the output's shape
        _pointwise(side, fn, out, inputs, values, in_fmts, out_fmt, skip, fine)
        return side
    for s, (args, value) in enumerate(zip(inputs, values)):
        got = value.detach().to("cpu", torch.float64).reshape(-1).numpy()
        x64 = [as_float64(a) for a in args]
        here = [j for t, j in positions if t == s]
        finer = None if fine is None or not here else fine([x.numpy() for x in x64])  # once per sample measured
        for j in here:
            ys, xs = with_leaves(fn, x64)
            y = ys[out].reshape(-1)
            grads = partials_or_differences(y[j], xs, element_difference_partials, fn, out, xs, j, float(y[j]))
            flat = [x.detach().reshape(-1).numpy() for x in xs]
            partials = [np.zeros(x.numel()) if g is None else g.reshape(-1).numpy() for g, x in zip(grads, xs)]

            def moved(deltas, xs=xs, j=j):
                if fine is not None and (found := fine([x.detach().numpy() for x in xs], list(deltas))) is not None:
                    return found[j : j + 1]
                with torch.no_grad():
                    return fn(*[_moved(x, d) for x, d in zip(xs, deltas)])[out].reshape(-1)[j : j + 1].numpy()

            exact = float(y[j].detach()) if finer is None else float(finer[j])
            _add_one(side, s, j, float(got[j]), exact, flat, partials, in_fmts, out_fmt, moved)
    return side


def _pointwise(side: Side, fn, out: int, inputs, values, in_fmts, out_fmt, skip: np.ndarray | None = None, fine=None) -> None:
    """One forward and one backward per slab of the samples stacked (`_slabs`): each element has its own copy of every input."""
    shape = tuple(values[0].shape)
    numel = max(1, math.prod(shape))
    for first, last, rows in _slabs(len(values), shape):
        offset = first * numel + (rows.start * (numel // shape[0]) if rows.start else 0)

        def slab(x: torch.Tensor, rows: slice = rows) -> torch.Tensor:
            x = x.detach().expand(shape)
            return as_float64(x if rows == slice(None) else x[rows])

        xs = [torch.stack([slab(args[i]) for args in inputs[first:last]]) for i in range(len(inputs[0]))]
        got = torch.cat([slab(v).reshape(-1) for v in values[first:last]]).numpy()
        _measure_slab(side, fn, out, xs, got, numel, offset, in_fmts, out_fmt, None if skip is None else skip[offset : offset + got.size], fine)


def _slabs(samples: int, shape: tuple[int, ...]) -> Iterator[tuple[int, int, slice]]:
    """(first sample, last sample + 1, rows of dim 0): whole samples while they fit `chunks.CHUNK_ELEMENTS` (all of
    them for any ordinary case), else one sample's rows at a time. A slab keeps the stacked tensor's rank."""
    numel, budget = max(1, math.prod(shape)), chunk_elements()
    if numel <= budget or not shape:
        step = max(1, budget // numel)
        for first in range(0, samples, step):
            yield first, min(first + step, samples), slice(None)
        return
    step = max(1, budget // (numel // shape[0]))
    for s in range(samples):
        for row in range(0, shape[0], step):
            yield s, s + 1, slice(row, min(row + step, shape[0]))


def _measure_slab(side: Side, fn, out: int, xs: list[torch.Tensor], got: np.ndarray, numel: int, offset: int, in_fmts, out_fmt, skip, fine=None) -> None:
    """`fine` (`fine_reference`): the exact values and the moved inputs' values from it, where it answers."""
    ys, xs = with_leaves(fn, xs)
    y = ys[out]
    # an op autograd has no formula for (the special polynomials, floor_divide): forward differences
    grads = partials_or_differences(y.sum(), xs, difference_partials, fn, out, xs, y.detach())
    flat = [x.detach().reshape(-1).numpy() for x in xs]
    partials = [np.zeros(len(got)) if g is None else g.reshape(-1).numpy() for g in grads]

    def moved(deltas):
        with torch.no_grad():
            return fn(*[_moved(x, d) for x, d in zip(xs, deltas)])[out].reshape(-1).numpy()

    def at(arrays):
        with torch.no_grad():
            return fn(*[torch.from_numpy(a).reshape(x.shape) for x, a in zip(xs, arrays)])[out].reshape(-1).numpy()

    exact, other_zero = at_other_zero(y.detach().reshape(-1).numpy(), got, flat, at)
    if fine is not None:
        exact, moved = finer_pointwise(fine, flat, exact, moved)
    side.signed_zero += int(other_zero.sum())
    _add(side, numel, offset, got, exact, flat, partials, in_fmts, out_fmt, moved, skip, other_zero)


def at_other_zero(exact: np.ndarray, got: np.ndarray, flat: list[np.ndarray], at) -> tuple[np.ndarray, np.ndarray]:
    """The op's exact value at each element's inputs with the sign of a zero input as the value shows it, and where that
    sign is the other one. -0 and +0 are one number, so taking either is no input move; an op discontinuous there (atan2
    on its branch cut, copysign) gives values 2 pi or twice the magnitude apart for them: its condition is infinite."""
    zeros = [x == 0 for x in flat]
    other = np.zeros(len(got), bool)
    flips = [[i] for i, z in enumerate(zeros) if z.any()]
    flips += [[i for i, _ in enumerate(flat)]] if len(flips) > 1 else []
    for flip in flips:
        flipped = at([np.where(z, -x, x) if i in flip else x for i, (x, z) in enumerate(zip(flat, zeros))])
        with np.errstate(invalid="ignore"):
            nearer = np.any([zeros[i] for i in flip], axis=0) & (np.abs(flipped - got) < np.abs(exact - got))
        exact, other = np.where(nearer, flipped, exact), other | nearer
    return exact, other


def _checked(needed, slack, got, exact, partials, flat, in_fmts, out_fmt, moved) -> np.ndarray:
    """`needed` where the op at the moved inputs does give the value, inf where first order misleads.

    Each input moves by `needed` of its ULPs in the direction that moves f toward the value; the
    float64 op there must be within the value's rounding plus half the slack. A huge condition
    makes the first-order step meaningless (softmax of 1e21: no input gives a softmax of 8000).
    """
    with np.errstate(invalid="ignore"):  # inf - inf where the op is infinite on both sides: no step there
        toward = np.sign(got - exact)
    finite = np.isfinite(needed) & (needed > 0) & np.isfinite(got)
    step = np.where(finite, needed, 0.0)
    deltas = [np.nan_to_num(toward * np.sign(g) * step * ulp(x, fmt)) for g, x, fmt in zip(partials, flat, in_fmts)]
    with np.errstate(invalid="ignore", over="ignore"):
        residual = np.abs(moved(deltas) - got)
        ok = residual <= 0.5 * ulp(got, out_fmt) + 0.5 * slack
    return np.where(finite & ~ok, np.inf, needed)


def _add(side: Side, numel: int, offset: int, got, exact, flat, partials, in_fmts, out_fmt, moved, skip: np.ndarray | None = None, other_zero=None) -> None:
    """Pointwise, samples stacked: element j (sample (offset + j) // numel) has position j of each expanded input
    (`other_zero`: elements whose exact value is at a zero input of the other sign, where the condition is infinite)."""
    keep = np.isfinite(exact) & (np.abs(exact) <= out_fmt.max_value) & (True if skip is None else ~skip)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        slack = _slack(got, exact, out_fmt)
        terms = [np.abs(g) * ulp(x, fmt) for g, x, fmt in zip(partials, flat, in_fmts)]
        sens = [np.abs(g) * np.abs(x) for g, x in zip(partials, flat)]
        denom = np.sum(terms, axis=0) if terms else np.zeros_like(got)
        needed = _ratio(slack, denom)
        per = [_ratio(slack, t) for t in terms]
        cond = np.sum(sens, axis=0) / np.abs(exact) if sens else np.zeros_like(got)
    cond = np.where(other_zero, np.inf, cond) if other_zero is not None else cond
    forward = _forward(got, exact, out_fmt)
    bad = ~np.all([np.isfinite(g) for g in partials], axis=0) if partials else np.zeros(len(got), bool)
    needed = np.where(bad, np.inf, needed)  # an infinite derivative: first order says nothing
    needed = _checked(needed, slack, got, exact, partials, flat, in_fmts, out_fmt, moved)
    order = np.flatnonzero(keep)
    unit = _forward(got, exact, in_fmts[0], ulp(flat[0], in_fmts[0]))[order] if len(flat) == 1 else None  # one input: in its ULPs too (`Bound.unit`)
    side.add(forward[order], needed[order], np.where(np.isnan(cond[order]), np.inf, cond[order]), unit)
    ranked = order[np.lexsort((-nan_low(forward[order]), -nan_low(needed[order])))]
    found = []
    for j in ranked[:WORST]:
        at = offset + int(j)
        found.append(
            Element(at // numel, at % numel, float(got[j]), float(exact[j]), float(forward[j]), float(cond[j]), float(needed[j]), [float(p[j]) for p in per])
        )
    side.keep_worst(found)


def _add_one(side: Side, s: int, j: int, got: float, exact: float, flat, partials, in_fmts, out_fmt, moved) -> None:
    """Any op: element j depends on every input element."""
    if not math.isfinite(exact) or abs(exact) > out_fmt.max_value:
        return
    slack = float(_slack(np.array([got]), np.array([exact]), out_fmt)[0])
    terms = [float(np.sum(np.abs(g) * ulp(x, fmt))) for g, x, fmt in zip(partials, flat, in_fmts)]
    sens = sum(float(np.sum(np.abs(g) * np.abs(x))) for g, x in zip(partials, flat))
    finite = all(bool(np.isfinite(g).all()) for g in partials)
    needed = float(_ratio(np.array(slack), np.array(sum(terms)))) if finite else math.inf
    if finite:
        needed = float(
            _checked(
                np.array([needed]),
                np.array([slack]),
                np.array([got]),
                np.array([exact]),
                partials,
                flat,
                in_fmts,
                out_fmt,
                moved,
            )[0]
        )
    cond = sens / abs(exact) if exact != 0 else (math.inf if sens > 0 else 0.0)
    forward = float(_forward(np.array([got]), np.array([exact]), out_fmt)[0])
    side.add(np.array([forward]), np.array([needed]), np.array([cond]))
    side.keep_worst([Element(s, j, got, exact, forward, cond, needed, [float(_ratio(np.array(slack), np.array(t))) for t in terms])])


def _slack(got: np.ndarray, exact: np.ndarray, fmt) -> np.ndarray:
    """What the inputs must explain: the error beyond the value's own final rounding (inf when the value is not finite)."""
    with np.errstate(invalid="ignore", over="ignore"):
        slack = np.maximum(0.0, np.abs(got - exact) - 0.5 * ulp(got, fmt))
    return np.where(np.isfinite(got), slack, np.inf)


def _ratio(slack: np.ndarray, denom: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(slack == 0, 0.0, np.where(denom > 0, slack / np.where(denom > 0, denom, 1.0), np.inf))
