"""Minimise a finding on its target: the generic shrinker, with a predicate that recompiles each
candidate and keeps it only when it shows the same finding (same signature).

Costs, in compiles: one to confirm the finding here and at most two to analyse it (its culprit
op and cause), one per candidate the predicate judges (rejected candidates are remembered, not
re-run), and one to three to analyse the minimised case, whose culprit and cause are stored.
A finding that kills its process (segfault, abort, timeout, oom) pays a worker's death for each
candidate that still shows it, so its minimisation stops once the program is down to one op. A
refusal (`unsupported`) needs no more than its op: only the graph passes run, down to one op.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import SIZE_FIELDS, size_key
from numfuzz.corpus.store import save_case, write_atomic
from numfuzz.judge.analysis import facts_without_compiling, single_op_evidence
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.cast_dropped import cast_dropped
from numfuzz.judge.cause import CAST_DROPPED, LOW_PRECISION
from numfuzz.judge.causes import low_precision
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome
from numfuzz.judge.localize import flagged_index
from numfuzz.judge.metadata import keeps_output_strides
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.signature import Signature, mode_label, renamed, same_finding, signature_of
from numfuzz.judge.verdicts import ACCURACY_SYMPTOMS
from numfuzz.program.ir import Graph
from numfuzz.program.model_scale import is_large
from numfuzz.program.ops import infer_specs
from numfuzz.reduce.schedule import SCHEDULE, TO_ONE_OP
from numfuzz.reduce.shrinker import Check, Exhausted, ShrinkPass, Step, shrink
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import analyse_case, judge_case
from numfuzz.targets import Target
from numfuzz.targets.compile_modes import compile_count, configured

DEFAULT_MAX_COMPILES = 400
FINAL_ANALYSIS_COMPILES = 3  # the minimised case run again, its probe and its sweep


class CountingTarget:
    """Wraps a target and counts how often it is asked to compile; `configured(run)` counts into the same count."""

    def __init__(self, inner: Target, count: list[int] | None = None):
        self.inner = inner
        self.name = inner.name
        self._count = count if count is not None else [0]

    @property
    def compiles(self) -> int:
        return self._count[0]

    @compiles.setter
    def compiles(self, value: int) -> None:
        self._count[0] = value

    def configured(self, run: RunSpec) -> CountingTarget:
        return CountingTarget(configured(self.inner, run), self._count)

    def compile_count(self, compiled: Callable) -> int | None:
        return compile_count(self.inner, compiled)

    def min_elements(self, dtype: str, device: str) -> int:
        floor = getattr(self.inner, "min_elements", None)
        return floor(dtype, device) if callable(floor) else 1

    def available(self) -> tuple[bool, str]:
        return self.inner.available()

    def keeps_output_strides(self) -> bool:
        return keeps_output_strides(self.inner)

    def prepare(self, fn: Callable, device: str) -> Callable:
        self.compiles += 1
        return self.inner.prepare(fn, device)

    def final_trace(self, compiled: Callable) -> str | None:
        return self.inner.final_trace(compiled)

    def reset(self) -> None:
        self.inner.reset()


@dataclass
class MinimizeResult:
    original: Case
    case: Case  # the minimised case; the original itself when the finding did not reproduce
    reproduced: bool
    compiles: int
    signature: Signature | None = None
    outcome: Outcome | None = None  # of the minimised case
    steps: list[Step] = field(default_factory=list)
    exhausted: bool = False  # the compile or time budget ran out before a fixpoint
    detail: str = ""  # why it did not reproduce

    def summary(self) -> str:
        if not self.reproduced:
            return f"not reproduced: {self.detail}"
        before, after = size_key(self.original), size_key(self.case)
        return (
            f"{self.signature.text() if self.signature else '?'}: {before[0]} -> {after[0]} ops, "
            f"{before[4]} -> {after[4]} input values, in {self.compiles} compiles" + (" (budget ran out)" if self.exhausted else "")
        )


Runner = Callable[[Case], Outcome]  # evaluates a case elsewhere (an isolated worker), as `run_case` does
Progress = Callable[[dict], None]  # told before the first run and after each candidate


def one_op(case: Case) -> bool:
    return len(case.graph.nodes) <= 1


def minimize_case(
    case: Case,
    target: Target,
    device: str,
    max_compiles: int = DEFAULT_MAX_COMPILES,
    schedule: Iterable[ShrinkPass] = SCHEDULE,
    max_seconds: float | None = None,
    runner: Runner | None = None,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    bounds: Bounds | None = None,
) -> MinimizeResult:
    """Shrink `case` on `target` to the smallest case that shows the same finding.

    Each candidate runs in this process, or through `runner` (an isolated worker, for findings
    that kill their process). Past `max_seconds` the smallest case so far is the result. Never
    raises for what the target does (a runner may raise `Exhausted` to stop early: the smallest
    case so far is the result); the original case is not modified. `progress` gets a dict:
    stage, candidates judged, the smallest size so far in ops, runs (compiles) and seconds.
    Once `stop()` is true, no further candidate runs. `bounds`: what the verdict rules judge by.
    """
    return Minimizer(case, target, device, max_compiles, max_seconds, runner, progress, stop, bounds).run(schedule)


class Minimizer:
    """One minimisation: the counted target, the budget, the finding's signature and the candidates kept."""

    def __init__(self, case: Case, target: Target, device: str, max_compiles: int, max_seconds: float | None,
                 runner: Runner | None, progress: Progress | None, stop: Callable[[], bool] | None, bounds: Bounds | None):  # fmt: skip
        self.case, self.device, self.max_compiles = case, device, max_compiles
        self.target = CountingTarget(target)
        self.runner, self.progress, self.stop = runner, progress, stop
        self.bounds = active_bounds() if bounds is None else bounds
        self.started = time.monotonic()
        self.deadline = self.started + max_seconds if max_seconds is not None else math.inf
        self.smallest = len(case.graph.nodes)
        self.judged = 0
        self.kept: list[Case] = []  # the accepted candidates, in order: the last one is the result
        self.signature: Signature | None = None
        self.floor = 1

    def tell(self, stage: str, verdict: str = "", kept: bool = False) -> None:
        if self.progress is not None:
            info = {"stage": stage, "candidates": self.judged, "nodes": self.smallest, "from_nodes": len(self.case.graph.nodes)}
            info.update(runs=self.target.compiles, seconds=round(time.monotonic() - self.started, 2), verdict=verdict, kept=kept)
            self.progress(info)

    def evaluate(self, candidate: Case) -> Outcome:
        """A candidate as its run specification asks (size mode, options, second size), judged on one compile."""
        if self.runner is None:
            return judge_case(candidate, self.target, self.device)
        self.target.compiles += 1
        return self.runner(candidate)

    def analysed(self, candidate: Case) -> Outcome:
        got = self.evaluate(candidate)
        return analyse_case(candidate, self.target, self.device, got, bounds=self.bounds) if self.runner is None else got

    def run(self, schedule: Iterable[ShrinkPass]) -> MinimizeResult:
        case, target = self.case, self.target
        self.tell("confirm")
        work = case.with_run(case.run.with_changes(target=target.name))
        outcome = self.analysed(work)
        if not outcome.verdict.is_finding:
            why = f"{target.name} on {self.device} gives {outcome.verdict.value}" + (f" ({outcome.detail})" if outcome.detail else "")
            return MinimizeResult(case, case, False, target.compiles, outcome=outcome, detail=why)
        self.signature = signature = signature_of(target.name, outcome, work.run, work.graph)
        work = Case(work.graph, work.samples, work.run, [], dict(case.provenance), outcome.to_json(), {**case.extra, "signature": signature.to_json()},
                    work.grads, work.second)  # fmt: skip
        self.floor = _vector_floor(target, case, outcome, self.device)
        budget = max(self.max_compiles - target.compiles - FINAL_ANALYSIS_COMPILES, 0)  # room left to analyse the result
        self.tell("shrink", outcome.verdict.value, True)
        if outcome.verdict.is_refusal:  # a refusal's op and argument are all its coverage row needs: one op, nothing else shrunk
            schedule = [p for p in schedule if p.name in TO_ONE_OP]
        ends_at_one_op = outcome.verdict.kills_process or outcome.verdict.is_refusal
        shrunk = shrink(work, self.predicate, schedule, max_cost=budget, enough=one_op if ends_at_one_op else None)
        final, walked_back = shrunk.case, 0
        # asked to stop by the campaign: the smallest case goes back at once, unanalysed (the next run goes on from it);
        # analysing a model-sized case can outlast the grace the campaign gives, and then nothing comes back
        cancelled = self.stop is not None and self.stop()
        if self.kept and signature.symptom in ACCURACY_SYMPTOMS and self.runner is None and not cancelled:  # its own culprit and cause
            found = _latest_finding(self.kept, self.analysed)
            walked_back = len(self.kept) - 1 - found[0] if found is not None else len(self.kept)
            final = self.kept[found[0]] if found is not None else work
            if found is not None and found[1].analysis is not None:
                final.result, signature = found[1].to_json(), signature_of(target.name, found[1], final.run, final.graph)
        signature = replace(signature, mode=mode_label(final.run, final.graph))  # what the finding still needs of its size mode, options and region
        signature = renamed(signature, Outcome.from_json(final.result))  # a metadata finding: by the op that makes the output left
        if not signature.located:  # a crash or the like: name the ops that are left
            signature = replace(signature, ops=tuple(sorted({n.op for n in final.graph.nodes})), dtype="")
        self._note(final, signature, shrunk, walked_back)
        return MinimizeResult(case, final, True, target.compiles, signature, Outcome.from_json(final.result), shrunk.steps, shrunk.exhausted)

    def predicate(self, candidate: Case) -> Check:
        """Keep a candidate that shows the same finding, and that the verdict rules still call a finding."""
        if time.monotonic() > self.deadline or (self.stop is not None and self.stop()):
            raise Exhausted
        before = self.target.compiles
        if not self.wide_enough(candidate.graph):
            return Check(False, None, 0)
        got = self.evaluate(candidate)
        rows = candidate.tensors()
        keep = (
            same_finding(self.signature, candidate.graph, got)
            and self.keeps_its_cause(candidate.graph, rows, got)
            and self.still_a_finding(candidate.graph, rows, got)
        )
        self.judged += 1
        if keep:
            self.smallest = len(candidate.graph.nodes)
            self.kept.append(candidate)
        self.tell("shrink", got.verdict.value, keep)
        return Check(keep, got.to_json(), self.target.compiles - before)

    def wide_enough(self, graph: Graph) -> bool:
        """Every output keeps at least `floor` elements: the vectorised path the finding was seen on stays taken."""
        specs = infer_specs(graph)
        return all(specs[o].numel >= self.floor for o in graph.outputs)

    def keeps_its_cause(self, graph: Graph, rows: list, got: Outcome) -> bool:
        """A cause that float64 alone tests stays the finding's: a dropped cast stays dropped, and once the flagged output is
        one op, one more rounding stays that (values shrunk to the one element whose intermediate a subnormal spoils would
        look like a kernel's few ULP)."""
        if self.signature.cause == CAST_DROPPED.name and got.runs is not None:
            output = flagged_index(got)
            return output is not None and cast_dropped(Evidence(graph, rows, self.target, self.device, got, output)) is not None
        if self.signature.cause == LOW_PRECISION.name:
            ev = single_op_evidence(graph, rows, self.target, self.device, got)
            return ev is None or low_precision(ev) is not None
        return True

    def still_a_finding(self, graph: Graph, rows: list, got: Outcome) -> bool:
        """The verdict function on the facts float64 alone measures (a second size's candidate: its oracle verdict)."""
        if got.at:
            return True
        facts = facts_without_compiling(graph, rows, self.target, self.device, got, self.signature.cause, self.bounds)
        return final_verdict(got.oracle, facts, self.bounds).verdict.is_finding

    def _note(self, final: Case, signature: Signature, shrunk, walked_back: int) -> None:
        case = self.case
        original = case.extra.get("original") if isinstance(case.extra.get("original"), dict) else None
        final.extra = {
            **{k: v for k, v in case.extra.items() if k not in ("minimize", "original")},
            "signature": signature.to_json(),
            "original": original or {"hash": case.content_hash(), "case": case.to_json()},
            "minimize": {
                "compiles": self.target.compiles,
                "max_compiles": self.max_compiles,
                "exhausted": shrunk.exhausted,
                "isolated": self.runner is not None,
                "device": self.device,
                "from": dict(zip(SIZE_FIELDS, size_key(case))),
                "to": dict(zip(SIZE_FIELDS, size_key(final))),
                "spent": shrunk.spent,
                "steps": [s.to_json() for s in shrunk.steps],
                "walked_back": walked_back,  # accepted steps undone: their case was no longer a finding once analysed
                # the finding needs a model-sized value: no ordinary-sized one kept it (`program.model_scale`)
                **({"size_only": True} if is_large(final.graph) else {}),
                "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            },
        }
        final.provenance = dict(case.provenance)
        final.recipes = []


WALK_BACK_ANALYSES = 5  # at most this many analyses (up to 3 compiles each) to find the latest accepted case that is still a finding


def _latest_finding(kept: list[Case], analysed: Callable[[Case], Outcome]) -> tuple[int, Outcome] | None:
    """The latest accepted candidate whose own analysis is still a finding, with that analysis; None: none was found.

    Candidates are judged by their verdict alone; only the analysis tells a value that is merely
    rounding within its op's bound (or amplified) from a finding, so shrinking can end past the
    finding. The last candidate is tried first, then earlier ones by bisection (the finding is
    taken to hold up to some step and not after it).
    """
    tries = 0

    def holds(i: int) -> Outcome | None:
        nonlocal tries
        tries += 1
        got = analysed(kept[i])
        return got if got.verdict.is_finding else None

    got = holds(len(kept) - 1)
    if got is not None:
        return len(kept) - 1, got
    low, high, best = 0, len(kept) - 2, None
    while low <= high and tries < WALK_BACK_ANALYSES:
        mid = (low + high + 1) // 2
        got = holds(mid)
        if got is not None:
            best, low = (mid, got), mid + 1
        else:
            high = mid - 1
    return best


def _vector_floor(target: Target, case: Case, outcome: Outcome, device: str) -> int:
    """Fewest output elements a candidate may keep: one full vector of the flagged output's dtype, if the original had that."""
    index = flagged_index(outcome)
    min_elements = getattr(target, "min_elements", None)
    if index is None or not callable(min_elements):
        return 1
    specs = infer_specs(case.graph)
    outputs = len(case.graph.outputs)
    spec = specs[case.graph.outputs[index]] if index < outputs else case.graph.inputs[index - outputs]  # an input's gradient
    return min(min_elements(spec.dtype, device), spec.numel)


def save_minimized(result: MinimizeResult, out: Path) -> Path:
    """Write the minimised case to `out`: a .json file, or a folder (named by content hash there)."""
    out = Path(out)
    if out.suffix == ".json":
        write_atomic(out, json.dumps(result.case.to_json(), indent=1, sort_keys=True, allow_nan=False) + "\n")
        return out
    return save_case(result.case, out)
