"""Why a finding happens: cause classes, each a claim tested on the case, with its evidence.

Tests run in this order; the first that holds is the cause:

* cast_dropped          -- the target agrees with the program with an explicit narrowing cast
                           taken as a no-op, and not with the program as written (float64 only).
* emulated_rounding     -- with Inductor's emulate_precision_casts on, the program compiled
                           without it is as accurate as eager (one compile; judge.emulated_casts).
* nonfinite_intermediate-- the culprit op is the first value the target makes inf/nan where
                           eager's is finite; for softmax, whether that needs x - max(x) > 0.
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

from dataclasses import dataclass, field

import numpy as np
import torch

from numfuzz.judge.emulated_casts import CAUSE as EMULATED
from numfuzz.judge.emulated_casts import without_option_is_clean
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.localize import Culprit, Probe, Suffix
from numfuzz.judge.oracle import OutputErrors, _worse_than, compare_output, noise_floor, ulp_error
from numfuzz.judge.sweep import sweep
from numfuzz.program.dtypes import check_dtype
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import round_significand
from numfuzz.targets import Target

CAUSES = ("strided_input", "cast_dropped", "emulated_rounding", "nonfinite_intermediate", "low_precision", "cancellation", "kernel_accuracy", "unexplained")
CANCELLATION_REL = 0.1  # the target's relative error reaches at least this ...
SMALL_RESULT = 2.0**-8  # ... where the result is this much smaller than the sweep's largest
EAGER_SMALL_REL = 0.01  # points where eager is worse than this say nothing about the target
KERNEL_FEW_ULP = 8.0
ACCUMULATING = ("sum", "mean")


@dataclass
class Diagnosis:
    cause: str
    evidence: list[str] = field(default_factory=list)
    node: int | None = None  # the op the cause names: a dropped cast names the cast
    op: str = ""
    dtype: str = ""

    def to_json(self) -> dict:
        return {"cause": self.cause, "evidence": self.evidence, "node": self.node, "op": self.op, "dtype": self.dtype}


@dataclass
class Evidence:
    """What the tests read: the case, its outcome with its runs, the flagged output and the culprit."""

    graph: Graph
    samples: list[list[torch.Tensor]]
    target: Target
    device: str
    outcome: Outcome
    output: int
    culprit: Culprit | None = None
    probe: Probe | None = None
    suffix: Suffix | None = None  # located by cutting: the culprit's tests run on this suffix as one op


def _name(graph: Graph, k: int) -> str:
    node = graph.nodes[k]
    attrs = "".join(f", {key}={value!r}" for key, value in node.attrs)
    return f"t{k} = {node.op}({', '.join(_arg(graph, a) for a in node.args)}{attrs})"


def _arg(graph: Graph, value: int) -> str:
    n_in = len(graph.inputs)
    return f"x{value}" if value < n_in else f"t{value - n_in}"


# --- cast_dropped ----------------------------------------------------------------------------


def narrowing_casts(graph: Graph, value: int) -> list[int]:
    """Casts in `value`'s cone that can change a value: to fewer significand bits or a narrower range (bf16 -> fp16 too)."""
    specs = infer_specs(graph)
    found = []
    for k in cone(graph, value):
        node = graph.nodes[k]
        if node.op != "cast":
            continue
        to, source = check_dtype(node.attr("dtype")), check_dtype(specs[node.args[0]].dtype)
        if to.mantissa_bits < source.mantissa_bits or to.max_value < source.max_value or to.min_exponent > source.min_exponent:
            found.append(k)
    return found


def _reference_without(graph: Graph, samples: list[list[torch.Tensor]], casts: frozenset[int], output: int) -> np.ndarray:
    fn = compile_source(lower(graph, reference=True, exact_casts=casts))
    with torch.no_grad():
        runs = [fn(*[x.to("cpu", torch.float64) for x in sample])[output].reshape(-1).numpy() for sample in samples]
    return np.concatenate(runs)


def cast_dropped(ev: Evidence) -> Diagnosis | None:
    casts = narrowing_casts(ev.graph, ev.graph.outputs[ev.output])
    runs = ev.outcome.runs
    if not casts or runs is None:
        return None
    fmt = check_dtype(infer_specs(ev.graph)[ev.graph.outputs[ev.output]].dtype)
    ref, eager, got = runs.flat("reference", ev.output), runs.flat("eager", ev.output), runs.flat("target", ev.output)
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    e_err, t_err = ulp_error(eager[keep], ref[keep], fmt), ulp_error(got[keep], ref[keep], fmt)
    as_written = float(np.max(t_err, initial=0.0))
    for subset in [frozenset([k]) for k in casts] + ([frozenset(casts)] if len(casts) > 1 else []):
        without = _reference_without(ev.graph, ev.samples, subset, ev.output)[keep]
        t_without = ulp_error(got[keep], without, fmt)
        explained = float(np.max(t_without, initial=0.0))
        if not _worse_than(t_without, e_err, noise_floor(fmt)) and explained <= as_written / 2:
            k = min(subset)
            dropped = ", ".join(f"`{_name(ev.graph, j)}`" for j in sorted(subset))
            return Diagnosis(
                "cast_dropped",
                [
                    f"with {dropped} taken as a no-op the target's max error is {explained:.3g} ULP; "
                    f"against the program as written it is {as_written:.3g} ULP (eager: {float(np.max(e_err, initial=0.0)):.3g})"
                ],
                k,
                "cast",
                ev.graph.nodes[k].attr("dtype"),
            )
    return None


# --- the culprit's own values ----------------------------------------------------------------


def culprit_io(ev: Evidence, who: str) -> tuple[list[list[torch.Tensor]], list[torch.Tensor]]:
    """Per sample: `who`'s inputs of the culprit op and its value there."""
    if ev.suffix is not None:  # fed eager's values on both sides; its output stands for the culprit's value
        return ev.suffix.samples, [run[ev.suffix.output] for run in getattr(ev.suffix.outcome.runs, who)]
    k = ev.culprit.node
    n_in = len(ev.graph.inputs)

    def value(v: int) -> list[torch.Tensor]:
        if v < n_in:
            return [sample[v] for sample in ev.samples]
        if v == ev.graph.outputs[ev.output]:  # the flagged output as the case computed it, not as probed
            return [run[ev.output] for run in getattr(ev.outcome.runs, who)]
        return [run[ev.probe.nodes.index(v - n_in)] for run in getattr(ev.probe.runs, who)]

    args = [value(a) for a in ev.graph.nodes[k].args]
    return [[arg[s] for arg in args] for s in range(len(ev.samples))], value(n_in + k)


def culprit_alone_output(ev: Evidence) -> int:
    return ev.suffix.output if ev.suffix is not None else 0


def culprit_alone(ev: Evidence) -> Graph:
    if ev.suffix is not None:
        return ev.suffix.graph
    node, specs = ev.graph.nodes[ev.culprit.node], infer_specs(ev.graph)
    return Graph(tuple(specs[a] for a in node.args), (Node(node.op, tuple(range(len(node.args))), node.attrs),), (len(node.args),))


def emulated_rounding(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None:
        return None
    why = without_option_is_clean(ev.graph, ev.samples, ev.target, ev.device, c.node, c.dtype)
    return Diagnosis(EMULATED, [why], c.node, c.op, c.dtype) if why is not None else None


def nonfinite_intermediate(ev: Evidence) -> Diagnosis | None:
    c = ev.culprit
    if c is None or c.verdict != "nonfinite":
        return None
    inputs, values = culprit_io(ev, "target")
    _, eager = culprit_io(ev, "eager")
    bad = sum(int((~torch.isfinite(t) & torch.isfinite(e)).sum()) for t, e in zip(values, eager))
    kinds = sorted({"nan" if bool(t.isnan().any()) else "inf" for t in values if not bool(torch.isfinite(t).all())})
    made = f"{'/'.join(kinds) or 'non-finite'} ({bad} elements) where eager's is finite"
    if ev.suffix is not None:  # located by cutting: the culprit's own value may be finite; the fused rest from it is not
        evidence = [
            f"the program from `{_name(ev.graph, c.node)}` on, compiled from eager's values before it, makes {made}; from the op after it on, it does not"
        ]
    else:
        evidence = [f"`{_name(ev.graph, c.node)}` is the first value the target makes {made}"]
    if c.op in ("softmax", "log_softmax"):
        dim = ev.graph.nodes[c.node].attr("dim")
        rows = sum(int((torch.isfinite(x[0]).all(dim=dim) & ~torch.isfinite(y).all(dim=dim)).sum()) for x, y in zip(inputs, values))
        if rows:
            evidence.append(
                f"{rows} row(s) have only finite inputs yet non-finite results: exp(x - max(x)) overflowed, so the max the kernel "
                "subtracted was below an element of its row, x - max(x) > 0 (one value computed two ways inside the fusion)"
            )
    return Diagnosis("nonfinite_intermediate", evidence, c.node, c.op, c.dtype)


def cancellation(ev: Evidence) -> Diagnosis | None:
    """Sweep the culprit op alone; where that compiles to other code than the fused program, sweep the program."""
    c = ev.culprit
    if c is None:
        return None
    inputs, values = culprit_io(ev, "target")
    smallest = min(range(len(ev.samples)), key=lambda s: float(values[s].abs().double().min()))  # the smallest result
    found = _cancels(sweep(culprit_alone(ev), inputs[smallest], ev.target, ev.device, output=culprit_alone_output(ev)), f"`{_name(ev.graph, c.node)}`'s inputs")
    if found is None and ev.suffix is None and len(ev.graph.nodes) > 1:
        whole = sweep(ev.graph, ev.samples[smallest], ev.target, ev.device, output=ev.output)
        found = _cancels(whole, "the whole program's inputs (the op alone compiles to other code)")
    if found is None:
        return None
    return Diagnosis("cancellation", [found], c.node, c.op, c.dtype)


def _cancels(result, what: str) -> str | None:
    """The evidence line when the sweep shows a cancellation: a large relative error where the result is small."""
    if result.empty:
        return None
    ref, t_rel, e_rel = result.reference, result.target_rel, result.eager_rel
    usable = np.isfinite(ref) & (ref != 0) & (e_rel <= EAGER_SMALL_REL) & np.isfinite(t_rel)
    if usable.sum() < 3:
        return None
    mags, rels = np.abs(ref[usable]), t_rel[usable]
    worst, largest = int(np.argmax(rels)), float(mags.max())
    if rels[worst] < CANCELLATION_REL or mags[worst] > largest * SMALL_RESULT:
        return None
    return (
        f"sweeping {what} by powers of two: where the result is small (|result| {float(mags[worst]):.2g}, against up to "
        f"{largest:.2g} on the sweep) the target's relative error is {float(rels[worst]):.2g}; eager's stays at or below {float(e_rel[usable].max()):.2g}"
    )


def low_precision(ev: Evidence, local_max: float, eager_max: float, above_half: float) -> Diagnosis | None:
    c = ev.culprit
    if c is None:
        return None
    fmt = check_dtype(c.dtype)
    node = ev.graph.nodes[c.node]
    if node.op in ACCUMULATING and ev.suffix is None:
        inputs, values = culprit_io(ev, "target")
        dim = node.attr("dim")
        errs = []
        for x, got in zip(inputs, values):
            x64 = x[0].to(torch.float64).numpy()
            acc = np.take(x64, 0, axis=dim)
            for i in range(1, x64.shape[dim]):
                acc = round_significand(acc + np.take(x64, i, axis=dim), fmt.mantissa_bits + 1)
            if node.op == "mean":
                acc = round_significand(acc / x64.shape[dim], fmt.mantissa_bits + 1)
            errs.append(ulp_error(got.to(torch.float64).reshape(-1).numpy(), acc.reshape(-1), fmt))
        err = np.concatenate(errs)
        if err.size and float(err.max()) <= 0.5:
            return Diagnosis(
                "low_precision",
                [
                    f"the target's `{node.op}` equals accumulating in {c.dtype} one element at a time (max {float(err.max()):.3g} ULP from that), {local_max:.3g} ULP from float64"
                ],
                c.node,
                c.op,
                c.dtype,
            )
    if fmt.mantissa_bits < 23 and 0.5 < local_max <= 1.5 and eager_max <= 0.5 + 1e-9 and above_half >= 0.05:
        return Diagnosis(
            "low_precision",
            [
                f"`{node.op}` in {c.dtype}: the target is up to {local_max:.3g} ULP off with {100 * above_half:.0f}% of elements above half an ULP, eager never above {eager_max:.3g}: one more rounding in {c.dtype}"
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
    return Diagnosis("strided_input", evidence, node, ev.graph.nodes[node].op, dtype)


def diagnose(ev: Evidence) -> Diagnosis:
    """The first cause whose test holds; `unexplained` when none does."""
    found = strided_input(ev) or cast_dropped(ev) or emulated_rounding(ev) or nonfinite_intermediate(ev)
    if found is not None or ev.culprit is None:
        return found or Diagnosis("unexplained", ["the op where the difference starts is unknown"])
    c = ev.culprit
    local = culprit_local_errors(ev)
    above_half = float(np.mean(_target_local_ulp(ev) > 0.5)) if local.elements else 0.0
    found = low_precision(ev, local.target_max_ulp, local.eager_max_ulp, above_half) or cancellation(ev)
    if found is not None:
        return found
    if local.target_max_ulp <= KERNEL_FEW_ULP:
        return Diagnosis(
            "kernel_accuracy",
            [
                f"`{c.op}` in {c.dtype} is {local.target_max_ulp:.3g} ULP off at most (eager {local.eager_max_ulp:.3g}), with no cancellation, cast or accumulator pattern"
            ],
            c.node,
            c.op,
            c.dtype,
        )
    return Diagnosis(
        "unexplained",
        [f"`{c.op}` in {c.dtype}: {local.target_max_ulp:.3g} ULP against eager's {local.eager_max_ulp:.3g}; no cause test holds"],
        c.node,
        c.op,
        c.dtype,
    )


def culprit_local_errors(ev: Evidence) -> OutputErrors:
    """The culprit judged on its own: each side against the op applied, in float64, to that side's inputs."""
    reference_fn = compile_source(lower(culprit_alone(ev), reference=True))
    flat = {}
    with torch.no_grad():
        for who in ("target", "eager"):
            inputs, values = culprit_io(ev, who)
            refs = [reference_fn(*[a.to("cpu", torch.float64) for a in args])[culprit_alone_output(ev)].reshape(-1).numpy() for args in inputs]
            flat[who] = (np.concatenate(refs), np.concatenate([v.detach().to("cpu", torch.float64).reshape(-1).numpy() for v in values]))
    return compare_output(0, ev.culprit.dtype, flat["target"][0], flat["eager"][1], flat["target"][1], eager_reference=flat["eager"][0])


def _target_local_ulp(ev: Evidence) -> np.ndarray:
    """Per element: the target's error at the culprit against the op applied, in float64, to the target's own inputs."""
    inputs, values = culprit_io(ev, "target")
    reference_fn = compile_source(lower(culprit_alone(ev), reference=True))
    fmt = check_dtype(ev.culprit.dtype)
    errs = []
    with torch.no_grad():
        for args, got in zip(inputs, values):
            ref = reference_fn(*[a.to("cpu", torch.float64) for a in args])[culprit_alone_output(ev)].reshape(-1).numpy()
            keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
            errs.append(ulp_error(got.to("cpu", torch.float64).reshape(-1).numpy()[keep], ref[keep], fmt))
    return np.concatenate(errs) if errs else np.zeros(0)
