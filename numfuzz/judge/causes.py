"""Why a finding happens: cause classes, each a claim tested on the case, with its evidence.

The tests of the causes a value finding is diagnosed with, over one cached view of the culprit
(`judge.evidence`). Their order, cost and stage are said in `judge.cause_tests`, where every cause
has its entry; what each one claims:

* cast_dropped          -- (its own module, `judge.cast_dropped`) the target agrees with the program with a
                           narrowing cast (or a constant's rounding to its bf16/fp16 dtype) taken as a
                           no-op, and not with the program as written (float64 only).
* ill_conditioned       -- (at locating) the probe shows no op worse where the difference starts:
                           an op downstream amplifies it; the verdict is `amplified`.
* strided_input         -- with every input contiguous (the same values) the target is no finding
                           (one compile; named at the culprit where one is located).
* emulated_rounding     -- with Inductor's emulate_precision_casts on, the program compiled
                           without it is as accurate as eager (one compile; judge.emulated_casts).
* nonfinite_intermediate-- the culprit op is the first value the target makes inf/nan where
                           eager's is finite; for an op that subtracts its row's max (softmax:
                           `OpSpec.subtracts_row_max`), whether that needs x - max(x) > 0.
* nonfinite_dropped     -- (its own module, `judge.nonfinite_dropped`) the culprit loses, on its own inputs, a NaN
                           or inf that eager gives too: a non-finite class lost (`nonfinite_class`).
* low_precision         -- a sum or mean that matches accumulating in its own dtype one element
                           at a time; or a bf16/fp16 op whose errors look like one more rounding
                           in that dtype (at most 1.5 ULP, often above half an ULP, eager never).
* cancellation          -- on a sweep of the culprit op's inputs by powers of two (one compile),
                           the target's relative error is large (toward 1) where the result is
                           small against the sweep's largest, while eager's stays small there.
* kernel_accuracy       -- a few ULP (at most KERNEL_FEW_ULP) and no pattern above.
* unexplained           -- no test fits.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
import torch

from numfuzz.judge.cause import (
    CANCELLATION,
    EMULATED_ROUNDING,
    ILL_CONDITIONED,
    KERNEL_ACCURACY,
    LOW_PRECISION,
    NONFINITE_INTERMEDIATE,
    STRIDED_INPUT,
    UNEXPLAINED,
    Diagnosis,
)
from numfuzz.judge.chunks import Flat
from numfuzz.judge.domain_edge import explained_by_unrounded_inputs
from numfuzz.judge.emulated_casts import without_option_evidence
from numfuzz.judge.evidence import Evidence, op_line
from numfuzz.judge.execute import evaluate
from numfuzz.judge.oracle import OutputErrors, compare_output, ulp_error
from numfuzz.judge.sweep import SweepFailed, SweepPoint, sweep
from numfuzz.program.dtypes import check_dtype
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs, lookup
from numfuzz.program.values import round_significand

CANCELLATION_REL = 0.1  # the target's relative error reaches at least this ...
SMALL_RESULT = 2.0**-8  # ... where the result is this much smaller than the sweep's largest
EAGER_SMALL_REL = 0.01  # points where eager is worse than this say nothing about the target
KERNEL_FEW_ULP = 8.0
ONE_MORE_ROUNDING_ULP = 1.5  # an intermediate rounded once more in the culprit's dtype: at most this far from float64 ...
SUBNORMAL_TAIL = 0.05  # ... but for this share of elements, whose intermediate fell below the dtype's normal range


# --- the culprit's own values ----------------------------------------------------------------


def emulated_rounding(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None:
        return None
    why = without_option_evidence(ev.graph, ev.samples, ev.target, ev.device, c.node, c.dtype)
    return Diagnosis(EMULATED_ROUNDING.name, [why], c.node, c.op, c.dtype) if why is not None else None


def nonfinite_intermediate(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None or c.verdict != "nonfinite":
        return None
    inputs, values = ev.side("target")
    _, eager = ev.side("eager")
    bad = sum(int((~torch.isfinite(t) & torch.isfinite(e)).sum()) for t, e in zip(values, eager))
    kinds = sorted({"nan" if bool(t.isnan().any()) else "inf" for t in values if not bool(torch.isfinite(t).all())})
    made = f"{'/'.join(kinds) or 'non-finite'} ({bad} elements) where eager's is finite"
    if ev.suffix is not None:  # located by cutting: the culprit's own value may be finite; the fused rest from it is not
        evidence = [
            f"the program from `{op_line(ev.graph, c.node)}` on, compiled from eager's values before it, makes {made}; from the op after it on, it does not"
        ]
    else:
        evidence = [f"`{op_line(ev.graph, c.node)}` is the first value the target makes {made}"]
    if lookup(c.op).subtracts_row_max:
        dim = ev.graph.nodes[c.node].attr("dim")
        rows = sum(int((torch.isfinite(x[0]).all(dim=dim) & ~torch.isfinite(y).all(dim=dim)).sum()) for x, y in zip(inputs, values))
        if rows:
            evidence.append(
                f"{rows} row(s) have only finite inputs yet non-finite results: exp(x - max(x)) overflowed, so the max the kernel "
                "subtracted was below an element of its row, x - max(x) > 0 (one value computed two ways inside the fusion)"
            )
    return Diagnosis(NONFINITE_INTERMEDIATE.name, evidence, c.node, c.op, c.dtype)


def cancellation(ev: Evidence) -> Diagnosis | None:
    """Sweep the culprit op alone; where that compiles to other code than the fused program, sweep the program."""
    c = ev.culprit
    if c is None:
        return None
    inputs, values = ev.side("target")
    smallest = min(range(len(ev.samples)), key=lambda s: float(values[s].abs().double().min()))  # the smallest result
    found = _cancels(sweep(ev.alone(), inputs[smallest], ev.target, ev.device, output=ev.alone_output()), f"`{op_line(ev.graph, c.node)}`'s inputs")
    if found is None and ev.suffix is None and len(ev.graph.nodes) > 1:
        whole = sweep(ev.graph, ev.samples[smallest], ev.target, ev.device, output=ev.output)
        found = _cancels(whole, "the whole program's inputs (the op alone compiles to other code)")
    if found is None:
        return None
    return Diagnosis(CANCELLATION.name, [found], c.node, c.op, c.dtype)


def _cancels(points: Iterator[SweepPoint], what: str) -> str | None:
    """The evidence line when the sweep shows a cancellation: a large relative error where the result is small.

    Read a point at a time; over the elements usable (a finite, nonzero result where eager is accurate) it keeps the
    count, the first largest relative error of the target with its result, the largest result and eager's largest error."""
    usable_count, worst, largest, eager_largest = 0, None, -np.inf, -np.inf
    try:
        for point in points:
            ref, t_rel, e_rel = point.reference, point.target_rel, point.eager_rel
            usable = np.isfinite(ref) & (ref != 0) & (e_rel <= EAGER_SMALL_REL) & np.isfinite(t_rel)
            if not usable.any():
                continue
            usable_count += int(usable.sum())
            mags, rels = np.abs(ref[usable]), t_rel[usable]
            j = int(np.argmax(rels))
            if worst is None or rels[j] > worst[0]:
                worst = (float(rels[j]), float(mags[j]))
            largest, eager_largest = max(largest, float(mags.max())), max(eager_largest, float(e_rel[usable].max()))
    except SweepFailed:
        return None
    if usable_count < 3 or worst is None:
        return None
    rel, mag = worst
    if rel < CANCELLATION_REL or mag > largest * SMALL_RESULT:
        return None
    return (
        f"sweeping {what} by powers of two: where the result is small (|result| {mag:.2g}, against up to "
        f"{largest:.2g} on the sweep) the target's relative error is {rel:.2g}; eager's stays at or below {eager_largest:.2g}"
    )


def low_precision(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None:
        return None
    local = culprit_local_errors(ev)
    local_max, eager_max = local.target_max_ulp, local.eager_max_ulp
    ulps = _target_local_ulp(ev) if local.elements else np.zeros(0)
    past = int(np.sum(ulps > ONE_MORE_ROUNDING_ULP))
    # the share that one more rounding puts past half an ULP, counted within its reach (not the subnormal tail's)
    above_half = float(np.mean((ulps > 0.5) & (ulps <= ONE_MORE_ROUNDING_ULP))) if ulps.size else 0.0
    fmt = check_dtype(c.dtype)
    node = ev.graph.nodes[c.node]
    if lookup(node.op).combines == "add" and ev.suffix is None:  # an accumulator: was it held in the narrow dtype?
        inputs, values = ev.side("target")
        dim = node.attr("dim")
        errs = []
        for x, got in zip(inputs, values):
            x64 = np.atleast_1d(x[0].to(torch.float64).numpy())  # a 0-d value's dim 0 or -1 holds its one element
            acc = np.take(x64, 0, axis=dim)
            for i in range(1, x64.shape[dim]):
                acc = round_significand(acc + np.take(x64, i, axis=dim), fmt.mantissa_bits + 1)
            if lookup(node.op).divides_by_count:
                acc = round_significand(acc / x64.shape[dim], fmt.mantissa_bits + 1)
            errs.append(ulp_error(got.to(torch.float64).reshape(-1).numpy(), acc.reshape(-1), fmt))
        err = np.concatenate(errs)
        if err.size and float(err.max()) <= 0.5:
            return Diagnosis(
                LOW_PRECISION.name,
                [
                    f"the target's `{node.op}` equals accumulating in {c.dtype} one element at a time (max {float(err.max()):.3g} ULP from that), {local_max:.3g} ULP from float64"
                ],
                c.node,
                c.op,
                c.dtype,
            )
    # an intermediate rounded to a subnormal (silu's gate of a large negative input in fp16) loses relative precision: a
    # few elements may be further off than one rounding's ULP and a half, but not the ones that show the rounding
    # (not where the op's inputs are narrow values the program made and the target is their op unrounded: a fused kernel
    # that reads them before their rounding skips one, which the rounding bound judges; `domain_edge.explained_by_unrounded_inputs`)
    if (
        fmt.mantissa_bits < 23
        and 0.5 < local_max
        and past <= SUBNORMAL_TAIL * ulps.size
        and eager_max <= 0.5 + 1e-9
        and above_half >= 0.05
        and not explained_by_unrounded_inputs(ev)
    ):
        tail = "" if not past else f" ({past} of {ulps.size} elements past {ONE_MORE_ROUNDING_ULP:g} ULP, as a subnormal intermediate gives)"
        return Diagnosis(
            LOW_PRECISION.name,
            [
                f"`{node.op}` in {c.dtype}: the target is up to {local_max:.3g} ULP off with {100 * above_half:.0f}% of elements above half an ULP{tail}, eager never above {eager_max:.3g}: one more rounding in {c.dtype}"
            ],
            c.node,
            c.op,
            c.dtype,
        )
    return None


def strided_input(ev: Evidence) -> Diagnosis | None:
    """The finding needs a strided input: with every input contiguous (the same values) the target is no finding (one compile)."""
    strided = [i for i, s in enumerate(ev.graph.inputs) if s.layout is not None]
    if not strided:
        return None
    plain = Graph(tuple(s.with_layout(None) for s in ev.graph.inputs), ev.graph.nodes, ev.graph.outputs)
    again = evaluate(plain, ev.samples, ev.target, ev.device)
    if again.verdict.is_finding or again.runs is None:
        return None
    what = ", ".join(f"x{i} {'+'.join(ev.graph.inputs[i].layout.kinds())}" for i in strided)
    n_in = len(ev.graph.inputs)
    reader = next((k for k, n in enumerate(ev.graph.nodes) if any(a in strided for a in n.args)), 0)
    node = ev.culprit.node if ev.culprit is not None else reader
    dtype = infer_specs(ev.graph)[n_in + node].dtype
    evidence = [f"with every input contiguous (the same values; here {what}) the target is {again.verdict.value}: it mishandles a strided input"]
    return Diagnosis(STRIDED_INPUT.name, evidence, node, ev.graph.nodes[node].op, dtype)


def kernel_accuracy(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None:
        return None
    local = culprit_local_errors(ev)
    if local.target_max_ulp > KERNEL_FEW_ULP:
        return None
    why = f"`{c.op}` in {c.dtype} is {local.target_max_ulp:.3g} ULP off at most (eager {local.eager_max_ulp:.3g}), with no cancellation, cast or accumulator pattern"
    return Diagnosis(KERNEL_ACCURACY.name, [why], c.node, c.op, c.dtype)


def ill_conditioned(ev: Evidence) -> Diagnosis | None:
    """The probe reproduced the finding and shows no op worse both locally and globally (`localize.locate_culprit`)."""
    if ev.probe is None or ev.culprit is not None:
        return None
    return Diagnosis(ILL_CONDITIONED.name, [ILL_CONDITIONED.phrase])


def unexplained(ev: Evidence) -> Diagnosis:
    c = ev.culprit
    if c is None:
        return Diagnosis(UNEXPLAINED.name, ["the op where the difference starts is unknown"])
    if not ev.inputs_seen():  # a fallback: the probe could not show the values before it
        return Diagnosis(UNEXPLAINED.name, [f"`{c.op}` in {c.dtype}, located by {c.located}: its inputs were not seen"], c.node, c.op, c.dtype)
    local = culprit_local_errors(ev)
    why = f"`{c.op}` in {c.dtype}: {local.target_max_ulp:.3g} ULP against eager's {local.eager_max_ulp:.3g}; no cause test holds"
    return Diagnosis(UNEXPLAINED.name, [why], c.node, c.op, c.dtype)


def culprit_local_errors(ev: Evidence) -> OutputErrors:
    """The culprit judged on its own: each side against the op applied, in float64, to that side's inputs (cached)."""
    if "local_errors" not in ev._cache:
        flat = {who: Flat(ev.side(who)[1]) for who in ("target", "eager")}
        refs = {who: Flat(ev.reference_of(who)) for who in ("target", "eager")}
        ev._cache["local_errors"] = compare_output(0, ev.culprit.dtype, refs["target"], flat["eager"], flat["target"], eager_reference=refs["eager"])
    return ev._cache["local_errors"]


def _target_local_ulp(ev: Evidence) -> np.ndarray:
    """Per element: the target's error at the culprit against the op applied, in float64, to the target's own inputs."""
    fmt = check_dtype(ev.culprit.dtype)
    errs = []
    for ref, got in zip(ev.reference_of("target"), ev.side("target")[1]):
        keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
        errs.append(ulp_error(got.to("cpu", torch.float64).reshape(-1).numpy()[keep], ref[keep], fmt))
    return np.concatenate(errs) if errs else np.zeros(0)
