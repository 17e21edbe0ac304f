"""cast_dropped: the target agrees with the program with a narrowing cast taken as a no-op.

A narrowing cast (or a constant's rounding to its bf16/fp16 dtype, or autocast's casts of an op's arguments) that the
compiled code does not round at. Tested on the flagged output before the culprit is located (exposing values could
undo the elision), at the culprit after (a cast upstream, judged near it so that what follows cannot hide it), and where
cutting the fused program locates the culprit at the cast itself. `judge.cause_tests` says when each runs. An integer
or bool output (exact_mismatch) is judged whole: there a bf16/fp16 intermediate's own rounding, which eager stores and
Inductor's fused code skips, counts as such a cast too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from numfuzz.judge.bounds import FP32_MANTISSA
from numfuzz.judge.cause import CAST_DROPPED, Diagnosis
from numfuzz.judge.compiled import reference_flat
from numfuzz.judge.evidence import Evidence, op_line
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis
from numfuzz.judge.nonfinite_class import class_lost, classes
from numfuzz.judge.oracle import noise_floor, ulp_error, worse_than
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.autocast import region, rounded_args
from numfuzz.program.dtypes import FloatFormat, check_dtype, is_narrow
from numfuzz.program.graph_edit import cone, with_outputs
from numfuzz.program.ir import Graph, Node
from numfuzz.program.ops import infer_specs, lookup

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


def cast_dropped(ev: Evidence) -> Diagnosis | None:
    """Before locating: the flagged output agrees with the program with a narrowing cast taken as a no-op."""
    runs = ev.outcome.runs
    if runs is None:
        return None
    seen = Seen(runs.flat("reference", ev.output), runs.flat("eager", ev.output), runs.flat("target", ev.output))
    graph, n_out = ev.graph, len(ev.graph.outputs)
    if ev.output < n_out:
        value = graph.outputs[ev.output]
        return _dropped_at(graph, ev.samples, value, ev.output, seen, narrowing_casts(graph, value))
    if ev.upstream is None:
        return None
    # an input's gradient: the casts on every output's path round the gradient flowing back through them (eager's
    # autograd casts it back to each cast's source dtype); a compiled backward that fuses across them may not
    casts = sorted({k for o in graph.outputs for k in narrowing_casts(graph, o)})
    return _dropped_at(graph, ev.samples, ev.output - n_out, ev.output, seen, casts, ev.upstream)


def narrow_intermediates(graph: Graph, value: int) -> list[int]:
    """Nodes in `value`'s cone, other than its own, whose result is bf16/fp16 and read by another node: eager stores each
    rounded to its dtype, and a compiler that fuses them may keep it in fp32 (Inductor's cast elision)."""
    specs = infer_specs(graph)
    first = len(graph.inputs)
    return [k for k in cone(graph, value) if first + k != value and is_narrow(specs[first + k].dtype)]


def cast_dropped_exactly(graph: Graph, samples: list[list[torch.Tensor]], outcome: Outcome) -> Analysis | None:
    """An integer or bool output that differs from eager's (exact_mismatch) where the target gives, at every element,
    the program's values with its narrowing casts taken as no-ops: frexp's exponent of a bf16 65536 cast to fp16 is 0
    in eager (the cast gives inf) and 17 compiled, as of 65536 itself. The rounding of a bf16/fp16 intermediate is
    such a cast too (the reference rounds none): isinf(i0(x)) of an fp16 16.0 is True in eager (i0 gives 893446, inf
    in fp16) and False compiled, where Inductor keeps i0's result in fp32; an argmax index of bf16 256 + 1 (256 in
    bf16, a tie) is the first in eager and the 257's compiled."""
    differing = [o for o in outcome.outputs if o.verdict == Verdict.EXACT_MISMATCH.value and o.index < len(graph.outputs)]
    if outcome.runs is None or not differing:
        return None
    dropped: set[int] = set()
    results: set[int] = set()  # intermediates whose own result's rounding is taken as a no-op
    for o in differing:
        value = graph.outputs[o.index]
        casts = frozenset(narrowing_casts(graph, value))
        kept = frozenset(narrow_intermediates(graph, value)) - casts
        if not (casts or kept) or not np.array_equal(reference_flat(graph, samples, o.index, casts), outcome.runs.flat("target", o.index)):
            return None
        dropped |= casts
        results |= kept
    words = {k: _what_rounds(graph.nodes[k]) for k in dropped} | {k: "'s rounding of its result" for k in results - dropped}
    named = ", ".join(f"`{op_line(graph, k)}`" + words[k] for k in sorted(words))
    k = min(words)
    dtype = graph.nodes[k].attr("dtype") or region(graph.nodes[k]) if k in dropped else infer_specs(graph)[len(graph.inputs) + k].dtype
    evidence = f"with {named} taken as a no-op the program gives the target's values at every element"
    return Analysis(differing[0].index, CAST_DROPPED.name, [evidence], "cast", dtype)


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
    reference = reference_flat(prefix, ev.samples, 0)
    seen = Seen(reference, np.concatenate([_flat(v) for v in eager]), np.concatenate([_flat(v) for v in target]))
    return _dropped_at(prefix, ev.samples, value, 0, seen, narrowing_casts(prefix, value))


@dataclass(frozen=True)
class Seen:
    """A value's reference, eager's and the target's, flat over the samples."""

    reference: np.ndarray
    eager: np.ndarray
    target: np.ndarray


def _flat(x: torch.Tensor) -> np.ndarray:
    return x.detach().to("cpu", torch.float64).reshape(-1).numpy()


def _dropped_at(
    graph: Graph,
    samples: list[list[torch.Tensor]],
    value: int,
    output: int,
    seen: Seen,
    casts: list[int],
    upstream: list[list[torch.Tensor]] | None = None,
) -> Diagnosis | None:
    """A cast among `casts` the target did not round at: against the program (judged value `output` of `graph` is
    `value`) with that cast taken as a no-op, the target is as accurate as eager is against the program as written. With
    `upstream`, the judged value is the gradient of input `value`, and `casts` those its backward meets."""
    if not casts:
        return None
    fmt = check_dtype(infer_specs(graph)[value].dtype)
    ref, eager, got = seen.reference, seen.eager, seen.target
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    lost = class_lost(ref, eager, got)  # a non-finite class the target lost is wrong by every bit, and must be explained too
    e_err, t_err = ulp_error(eager[keep], ref[keep], fmt), ulp_error(got[keep], ref[keep], fmt)
    as_written = math.inf if lost.any() else float(np.max(t_err, initial=0.0))
    for subset in [frozenset([k]) for k in casts] + ([frozenset(casts)] if len(casts) > 1 else []):
        uncast = reference_flat(graph, samples, output, subset, upstream)
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
            at = (
                f" in the gradient of x{value}"
                if upstream is not None
                else f" at `{op_line(graph, value - len(graph.inputs))}`"
                if value >= len(graph.inputs)
                else ""
            )
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


def cast_dropped_in_backward(ev: Evidence, bounds: object = None) -> Analysis | None:
    """A finding in an input's gradient that the program with a narrowing cast taken as a no-op explains: eager's autograd
    rounds the gradient flowing back through each cast to the cast's dtype and then its source's, and a backward fused
    across it may not (cumsum(x16, dtype=bf16) then leaky_relu: 0.01 * g in bf16 read as fp16 in eager, in fp32
    compiled). Decided before the backward is cut, which cannot see it: each op alone is given eager's rounded gradient."""
    n_out = len(ev.graph.outputs)
    if ev.output < n_out or ev.upstream is None or not ev.outcome.oracle.is_accuracy:
        return None
    found = cast_dropped(ev)
    if found is None:
        return None
    return Analysis(ev.output, found.cause, list(found.evidence), found.op, found.dtype, gradient_of=ev.output - n_out)
