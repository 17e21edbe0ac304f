"""A case on its target, in phases over one compiled program: judge, then search (when asked), then analyse.

The case's run specification says how: its device, and the search's share of the samples.
"""

from __future__ import annotations

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.judge.analysis import analyse
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, judge
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import GraphError
from numfuzz.program.values import conformed, encode
from numfuzz.search.phase import search_phase
from numfuzz.search.worst_inputs import search_budget
from numfuzz.targets import Target


def _device(case: Case, device: str | None) -> str:
    """`device` where given (the command line's --device), else the run specification's."""
    chosen = device or case.run.device
    if chosen is None:
        raise ValueError("the case's run specification names no device and none was given")
    return chosen


def run_case(case: Case, target: Target, device: str | None = None, want_trace: bool = False) -> Outcome:
    """The case's outcome on `target` (judged, no search); an accuracy finding comes with its analysis (culprit and cause)."""
    device = _device(case, device)
    samples = case.tensors()
    try:
        program = CompiledProgram(case.graph, target, device, grad=case.run.grad)
    except GraphError as exc:
        return Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    upstream = case.grad_tensors()
    return analyse(case.graph, samples, target, device, judge(program, samples, want_trace, upstream), upstream)


def search_rng(case: Case) -> np.random.Generator:
    """The input search's draws for `case`: seeded by the case, so a campaign's search is reproducible."""
    seed = int(case.provenance["seed"]) if str(case.provenance.get("seed", "")).isdigit() else int(case.content_hash()[:15], 16)
    return np.random.Generator(np.random.PCG64(seed ^ 0x5EA4C4))


def with_searched(case: Case, outcome: Outcome) -> Case:
    """The case with the samples its search added, bit for bit, and a note of them in its provenance."""
    if not outcome.searched:
        return case
    # the case's own samples stay as stored; an expanded input stores what its layout held (its first slice, repeated)
    added = [[encode(conformed(t, spec)) for t, spec in zip(sample, case.graph.inputs)] for sample in outcome.searched]
    provenance = {**case.provenance, "searched_samples": len(outcome.searched)}
    return Case(case.graph, case.samples + added, case.run, recipes=case.recipes, provenance=provenance, grads=case.grads)


def search_case(case: Case, target: Target, device: str | None = None) -> tuple[Case, Outcome]:
    """As `run_case`, with the search phase on a clean verdict (its share from the run specification):
    the case to keep (with what the search added) and its outcome."""
    if case.run.grad:  # the search draws inputs, not upstream gradients: with gradients it is off
        return case, run_case(case, target, device)
    device = _device(case, device)
    samples = case.tensors()
    try:
        program = CompiledProgram(case.graph, target, device)
    except GraphError as exc:
        return case, Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    outcome = judge(program, samples)
    outcome = search_phase(program, samples, outcome, search_budget(case.run.search, len(case.samples)), search_rng(case))
    case = with_searched(case, outcome)
    return case, analyse(case.graph, samples + outcome.searched, target, device, outcome)
