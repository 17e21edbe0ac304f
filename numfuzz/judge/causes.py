"""Why a finding happens: cause classes, each a claim tested on the case, with its evidence.

The tests of the causes a value finding is diagnosed with, over one cached view of the culprit
(`judge.evidence`). Their order, cost and stage are said in `judge.cause_tests`, where every cause
has its entry; what each one claims:

* cast_dropped          -- the target agrees with the program with an explicit narrowing cast (or a constant's
                           rounding to its bf16/fp16 dtype)
                           taken as a no-op, and not with the program as written (float64 only).
                           Tested on the flagged output before the culprit is located: exposing
                           values (the probe) could undo the elision it sees; and after, where
                           cutting locates the culprit at a narrowing cast.
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

import math
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import torch

from numfuzz.judge.bounds import FP32_MANTISSA
from numfuzz.judge.cause import (
    CANCELLATION,
    CAST_DROPPED,
    EMULATED_ROUNDING,
    ILL_CONDITIONED,
    KERNEL_ACCURACY,
    LOW_PRECISION,
    NONFINITE_INTERMEDIATE,
    STRIDED_INPUT,
    UNEXPLAINED,
)
from numfuzz.judge.chunks import Flat
from numfuzz.judge.compiled import as_reference, laid_out
from numfuzz.judge.emulated_casts import without_option_evidence
from numfuzz.judge.evidence import Evidence, op_line
from numfuzz.judge.execute import evaluate
from numfuzz.judge.nonfinite_class import class_lost, classes
from numfuzz.judge.oracle import OutputErrors, compare_output, noise_floor, ulp_error, worse_than
from numfuzz.judge.sweep import SweepFailed, SweepPoint, sweep
from numfuzz.program.autocast import region, rounded_args
from numfuzz.program.dtypes import FloatFormat, check_dtype
from numfuzz.program.graph_edit import cone, with_outputs
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs, lookup
from numfuzz.program.values import round_significand

CANCELLATION_REL = 0.1  # the target's relative error reaches at least this ...
SMALL_RESULT = 2.0**-8  # ... where the result is this much smaller than the sweep's largest
EAGER_SMALL_REL = 0.01  # points where eager is worse than this say nothing about the target
KERNEL_FEW_ULP = 8.0
ONE_MORE_ROUNDING_ULP = 1.5  # an intermediate rounded once more in the culprit's dtype: at most this far from float64 ...
SUBNORMAL_TAIL = 0.05  # ... but for this share of elements, whose intermediate fell below the dtype's normal range


@dataclass
class Diagnosis:
    cause: str
    evidence: list[str] = field(default_factory=list)
    node: int | None = None  # the op the cause names: a dropped cast names the cast
    op: str = ""
    dtype: str = ""

    def to_json(self) -> dict:
        return {"cause": self.cause, "evidence": self.evidence, "node": self.node, "op": self.op, "dtype": self.dtype}


# --- cast_dropped ----------------------------------------------------------------------------


OUTPUT_ROUNDING = 0.5  # ULP: storing a value rounds it this much at most


def narrowing_casts(graph: Graph, value: int) -> list[int]:
    """Casts in `value`'s cone that can change a value: to fewer significand bits or a narrower range (bf16 -> fp16 too),
    an op's cast of its argument to the dtype it computes in among them; nodes whose arguments autocast casts down (`autocast.rounded_args`), casts the program asked for as well; and constants
    made in a narrow dtype (a fill value rounded to bf16 is a cast too: Inductor may keep it in fp32)."""
    specs = infer_specs(graph)
    found = []
    for k in cone(graph, value):
        node = graph.nodes[k]
        if rounded_args(node, specs, lookup(node.op).autocast):
            found.append(k)
            continue
        if lookup(node.op).constant and check_dtype(specs[len(graph.inputs) + k].dtype).mantissa_bits < FP32_MANTISSA:
            found.append(k)
            continue
        into = "dtype" if node.op == "cast" else lookup(node.op).computes_in  # a reduction with dtype= casts its argument too
        if not into:
            continue
        to, source = check_dtype(node.attr(into)), check_dtype(specs[node.args[0]].dtype)
        if to.mantissa_bits < source.mantissa_bits or to.max_value < source.max_value or to.min_exponent > source.min_exponent:
            found.append(k)
    return found


def _what_rounds(node: Node) -> str:
    """What of a node `narrowing_casts` found rounds: the cast itself, a constant's fill value, or autocast's casts."""
    if node.op == "cast":
        return ""
    spec = lookup(node.op)
    return "'s rounding of its value" if spec.constant else "'s cast of its argument" if spec.computes_in else "'s autocast casts"


def _reference_without(graph: Graph, samples: list[list[torch.Tensor]], casts: frozenset[int], output: int) -> np.ndarray:
    fn = compile_source(lower(graph, reference=True, exact_casts=casts))
    with torch.no_grad():
        runs = [fn(*laid_out(as_reference(sample), graph.inputs))[output].reshape(-1).numpy() for sample in samples]
    return np.concatenate(runs)


def cast_dropped(ev: Evidence) -> Diagnosis | None:
    """Before locating: the flagged output agrees with the program with a narrowing cast taken as a no-op."""
    runs = ev.outcome.runs
    if runs is None:
        return None
    value = ev.graph.outputs[ev.output]
    seen = Seen(runs.flat("reference", ev.output), runs.flat("eager", ev.output), runs.flat("target", ev.output))
    return _dropped_at(ev.graph, ev.samples, value, ev.output, seen)


def cast_dropped_located(ev: Evidence) -> Diagnosis | None:
    """After locating: the culprit is a narrowing cast that cutting located, or a cast upstream of it was dropped."""
    return cast_dropped_at_cut(ev) or cast_dropped_upstream(ev)


def cast_dropped_upstream(ev: Evidence) -> Diagnosis | None:
    """After locating: the culprit's value, as the probe saw it, agrees with the program up to the culprit with a narrowing
    cast upstream taken as a no-op. Judged at the culprit, near the cast, so that what follows (a tan near its pole, an
    exp, a division) cannot hide the dropped cast by amplifying the rest of its rounding, as it can at the output."""
    c = ev.culprit
    if c is None or ev.suffix is not None or ev.probe is None:
        return None
    value = len(ev.graph.inputs) + c.node
    _, target = ev.side("target")
    _, eager = ev.side("eager")
    prefix = with_outputs(ev.graph, [value])
    reference = _reference_without(prefix, ev.samples, frozenset(), 0)
    seen = Seen(reference, np.concatenate([_flat(v) for v in eager]), np.concatenate([_flat(v) for v in target]))
    return _dropped_at(prefix, ev.samples, value, 0, seen)


@dataclass(frozen=True)
class Seen:
    """A value's reference, eager's and the target's, flat over the samples."""

    reference: np.ndarray
    eager: np.ndarray
    target: np.ndarray


def _flat(x: torch.Tensor) -> np.ndarray:
    return x.detach().to("cpu", torch.float64).reshape(-1).numpy()


def _dropped_at(graph: Graph, samples: list[list[torch.Tensor]], value: int, output: int, seen: Seen) -> Diagnosis | None:
    """A cast in `value`'s cone the target did not round at: against the program (output `output` of `graph` is `value`)
    with that cast taken as a no-op, the target is as accurate as eager is against the program as written."""
    casts = narrowing_casts(graph, value)
    if not casts:
        return None
    fmt = check_dtype(infer_specs(graph)[value].dtype)
    ref, eager, got = seen.reference, seen.eager, seen.target
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    lost = class_lost(ref, eager, got)  # a non-finite class the target lost is wrong by every bit, and must be explained too
    e_err, t_err = ulp_error(eager[keep], ref[keep], fmt), ulp_error(got[keep], ref[keep], fmt)
    as_written = math.inf if lost.any() else float(np.max(t_err, initial=0.0))
    for subset in [frozenset([k]) for k in casts] + ([frozenset(casts)] if len(casts) > 1 else []):
        uncast = _reference_without(graph, samples, subset, output)
        if lost.any() and not _class_explained(uncast[lost], got[lost], fmt):
            continue
        without = uncast[keep]
        t_without = ulp_error(got[keep], without, fmt)
        # where the program without the cast overflows the output's format, storing it there gives the infinity the target gave
        stored_inf = (np.abs(without) > fmt.max_value) & np.isinf(got[keep]) & (np.sign(got[keep]) == np.sign(without))
        t_without = np.where(stored_inf, 0.0, t_without)
        explained = float(np.max(t_without, initial=0.0))
        # as accurate against the program without the cast as eager against it with, or within the output's own rounding
        # (where eager's value is exact, the target's one rounding of the uncast value would count as worse)
        as_eager = explained <= OUTPUT_ROUNDING or not worse_than(t_without, e_err, noise_floor(fmt))
        if as_eager and explained <= as_written / 2:
            k = min(subset)
            dropped = ", ".join(f"`{op_line(graph, j)}`" + _what_rounds(graph.nodes[j]) for j in sorted(subset))
            at = f" at `{op_line(graph, value - len(graph.inputs))}`" if value >= len(graph.inputs) else ""
            return Diagnosis(
                CAST_DROPPED.name,
                [
                    f"with {dropped} taken as a no-op the target's max error{at} is {explained:.3g} ULP; "
                    f"against the program as written it is {as_written:.3g} ULP (eager: {float(np.max(e_err, initial=0.0)):.3g})"
                ],
                k,
                "cast",
                graph.nodes[k].attr("dtype") or region(graph.nodes[k]),
            )
    return None


def _class_explained(without: np.ndarray, got: np.ndarray, fmt: FloatFormat) -> bool:
    """The target's values where it lost a non-finite class are the program's without a cast: of its class, and a finite
    one within an ULP (the uncast value's own rounding to the output's dtype)."""
    if not bool((classes(without) == classes(got)).all()):
        return False
    finite = np.isfinite(got)
    return bool((ulp_error(got[finite], without[finite], fmt) <= 1.0).all())


def cast_dropped_at_cut(ev: Evidence) -> Diagnosis | None:
    """After locating: the culprit, found by cutting the fused program, is a narrowing cast, so the program from the cast
    on fails where the program from the op after it, given the cast's rounded value, does not: the compiled code does
    not round at the cast. This sees a dropped cast whose unrounded value a later inexact op then spoils, which the
    output-level test (against the program with the cast taken as a no-op) cannot."""
    c = ev.culprit
    if c is None or ev.suffix is None or c.op != "cast" or c.node not in narrowing_casts(ev.graph, ev.graph.outputs[ev.output]):
        return None
    why = (
        f"the fused program from `{op_line(ev.graph, c.node)}` on, given eager's values before the cast, is {c.verdict}; from the op after it on, "
        "given the cast's rounded value, it is not: the compiled code does not round at the cast"
    )
    return Diagnosis(CAST_DROPPED.name, [why], c.node, "cast", ev.graph.nodes[c.node].attr("dtype"))


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
    if fmt.mantissa_bits < 23 and 0.5 < local_max and past <= SUBNORMAL_TAIL * ulps.size and eager_max <= 0.5 + 1e-9 and above_half >= 0.05:
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
