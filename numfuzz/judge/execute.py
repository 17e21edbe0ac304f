"""Run one case: eager, the float64 reference and a target, then ask the oracle.

Everything a target can do wrong comes back as an Outcome, never as an exception.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

from numfuzz.judge.oracle import OutputErrors, combine, compare_output
from numfuzz.judge.position import position_dependence
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, GraphError
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import torch_dtype
from numfuzz.targets import Target


@dataclass
class Runs:
    """What one evaluation computed, per sample and output: kept in memory for the analysis, never stored."""

    eager: list[tuple]
    reference: list[tuple]
    target: list[tuple]

    def flat(self, who: str, k: int) -> np.ndarray:
        """Output `k` of every sample, as one flat float64 array."""
        return _flat64([run[k] for run in getattr(self, who)])


@dataclass
class Outcome:
    verdict: Verdict
    detail: str = ""
    outputs: list[OutputErrors] = field(default_factory=list)
    compile_s: float = 0.0  # first target call, which compiles
    run_s: float = 0.0  # every later target call
    trace: str | None = None
    analysis: dict | None = None  # where the difference starts and why (numfuzz.judge.analysis)
    runs: Runs | None = field(default=None, repr=False, compare=False)
    # samples an input search added (on CPU, in the inputs' dtypes): the case must store them to reproduce
    searched: list[list[torch.Tensor]] = field(default_factory=list, repr=False, compare=False)

    def to_json(self) -> dict:
        data = {
            "verdict": self.verdict.value,
            "detail": self.detail,
            "outputs": [o.to_json() for o in self.outputs],
            "compile_s": round(self.compile_s, 4),
            "run_s": round(self.run_s, 4),
        }
        if self.analysis is not None:
            data["analysis"] = self.analysis
        return data

    @staticmethod
    def from_json(data: dict) -> Outcome:
        return Outcome(
            Verdict(data["verdict"]),
            data.get("detail", ""),
            [OutputErrors.from_json(o) for o in data.get("outputs", [])],
            float(data.get("compile_s", 0.0)),
            float(data.get("run_s", 0.0)),
            analysis=data.get("analysis") if isinstance(data.get("analysis"), dict) else None,
        )


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def _crash_verdict(exc: BaseException, verdict: Verdict) -> Verdict:
    """Running out of memory is its own symptom, whichever stage raised it."""
    if isinstance(exc, (MemoryError, torch.OutOfMemoryError)) or "can't allocate memory" in str(exc):
        return Verdict.OOM
    return verdict


def _as_tuple(result: object) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _flat64(tensors: list[torch.Tensor]) -> np.ndarray:
    return np.concatenate([t.detach().to("cpu", torch.float64).reshape(-1).numpy() for t in tensors])


def _same_bits(a: tuple, b: tuple) -> bool:
    return all(torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)) and
               bool((x.isnan() == y.isnan()).all()) for x, y in zip(a, b))  # fmt: skip


# explore(run_target, eager_fn, reference_fn, samples on the device, output dtypes) -> a Found
# (numfuzz.search.worst_inputs): more inputs to try on the same compile, proposed by a search.
Explore = Callable[[Callable, Callable, Callable, list, list], Any]
CLEAN = (Verdict.EQUAL, Verdict.MORE_ACCURATE)


def evaluate(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, want_trace: bool = False, explore: Explore | None = None) -> Outcome:
    """Compile `graph` once with `target`, run every sample, and judge against float64.

    A clean verdict then gets two more looks on the same compile: `explore`, when given, proposes
    samples, which are kept (in `Outcome.searched`) only if with them the usual rule finds a
    difference; and the position check (`judge.position`) runs on every sample.
    """
    try:
        specs = infer_specs(graph)
    except GraphError as exc:
        return Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    fn = compile_source(lower(graph))
    ref_fn = compile_source(lower(graph, reference=True))
    out_specs = [specs[o] for o in graph.outputs]
    on_device = [[x.to(device) for x in sample] for sample in samples]
    eager_runs, ref_runs = [], []
    with torch.no_grad():
        for sample in on_device:
            try:
                eager_runs.append(_as_tuple(fn(*sample)))
                ref_runs.append(_as_tuple(ref_fn(*[x.to("cpu", torch.float64) for x in sample])))
            except Exception as exc:
                return Outcome(Verdict.INVALID, f"eager raised {_one_line(exc)}")
    for spec, out in zip(out_specs, eager_runs[0]):
        if out.dtype != torch_dtype(spec.dtype) or tuple(out.shape) != spec.shape:
            return Outcome(Verdict.INVALID, f"eager gave {out.dtype}{tuple(out.shape)}, op table says {spec}")

    target.reset()
    target_runs: list[tuple] = []
    compile_s = run_s = 0.0
    try:
        compiled: Callable = target.prepare(fn, device)
    except Exception as exc:
        return Outcome(_crash_verdict(exc, Verdict.CRASH_COMPILE), f"prepare raised {_one_line(exc)}")
    with torch.no_grad():
        for i, sample in enumerate(on_device + on_device[:1]):  # the first sample twice: determinism
            start = time.perf_counter()
            try:
                target_runs.append(_as_tuple(compiled(*sample)))
            except Exception as exc:
                verdict = _crash_verdict(exc, Verdict.CRASH_COMPILE if i == 0 else Verdict.CRASH_RUN)
                return Outcome(verdict, _one_line(exc), compile_s=compile_s, run_s=run_s)
            elapsed = time.perf_counter() - start
            compile_s, run_s = (compile_s + elapsed, run_s) if i == 0 else (compile_s, run_s + elapsed)
    trace = target.final_trace(compiled) if want_trace else None

    for eager, got in zip(eager_runs, target_runs):
        if len(got) != len(eager) or any(not isinstance(g, torch.Tensor) or g.dtype != e.dtype or g.shape != e.shape for g, e in zip(got, eager)):
            described = [f"{g.dtype}{tuple(g.shape)}" if isinstance(g, torch.Tensor) else type(g).__name__ for g in got]
            expected = [f"{e.dtype}{tuple(e.shape)}" for e in eager]
            return Outcome(Verdict.MISMATCH, f"target gave {described}, eager {expected}", compile_s=compile_s, run_s=run_s, trace=trace)
    if not _same_bits(target_runs[0], target_runs[-1]):
        return Outcome(Verdict.NONDETERMINISTIC, "two runs on the first sample differ", compile_s=compile_s, run_s=run_s, trace=trace)

    runs = Runs(eager_runs, ref_runs, target_runs[: len(samples)])
    outputs = _judge(runs, out_specs)
    verdict = combine(outputs)
    searched: list[list[torch.Tensor]] = []
    if explore is not None and verdict in CLEAN:
        start = time.perf_counter()
        found = explore(lambda sample: _as_tuple(compiled(*sample)), fn, ref_fn, on_device, [s.dtype for s in out_specs])
        run_s += time.perf_counter() - start
        if found.samples:
            more = Runs(runs.eager + found.eager, runs.reference + found.reference, runs.target + found.target)
            more_outputs = _judge(more, out_specs)
            more_verdict = combine(more_outputs)
            if more_verdict.is_finding:
                runs, outputs, verdict, searched = more, more_outputs, more_verdict, found.samples
    detail = "no element has a finite reference" if verdict is Verdict.INVALID else ""
    if verdict in CLEAN:
        every = [[x.cpu() for x in sample] for sample in samples] + searched
        moved = position_dependence(every, runs.eager, runs.reference, runs.target, [s.dtype for s in out_specs])
        if moved is not None:
            verdict, detail = Verdict.POSITION_DEPENDENT, moved
    return Outcome(verdict, detail, outputs, compile_s, run_s, trace, runs=runs, searched=searched)


def _judge(runs: Runs, out_specs: list) -> list[OutputErrors]:
    return [compare_output(k, out_specs[k].dtype, runs.flat("reference", k), runs.flat("eager", k), runs.flat("target", k)) for k in range(len(out_specs))]
