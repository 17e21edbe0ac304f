"""A case on its target, in phases over one compiled program: judge, search (when asked), the second size, then analyse.

The case's run specification says how: its device, the search's share of the samples, and how
the target compiles (symbolic sizes, marked dims, compiler options: `targets.compile_modes`).
A dynamic case with a second size runs the same compile there after a clean first size
(`judge.second_size`), before the analysis, whose probes compile again. The verdict rules judge by
`bounds`; where none are given, by this process's (the shipped ones and the files it was handed: a
campaign's workers get its `--bounds` in their settings; elsewhere $NUMFUZZ_BOUNDS names them).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

import numpy as np
import torch

from numfuzz.address import SEARCH, CaseAddress
from numfuzz.corpus.case import Case
from numfuzz.judge.analysis import analyse
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, judge
from numfuzz.judge.second_size import judge_second_size, second_size_note
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import GraphError
from numfuzz.program.values import conformed, encode
from numfuzz.search.phase import search_phase
from numfuzz.search.worst_inputs import search_budget
from numfuzz.targets import Target
from numfuzz.targets.compile_modes import configured

T = TypeVar("T")


def _device(case: Case, device: str | None) -> str:
    """`device` where given (the command line's --device), else the run specification's."""
    chosen = device or case.run.device
    if chosen is None:
        raise ValueError("the case's run specification names no device and none was given")
    return chosen


@contextmanager
def intra_op_threads(count: int) -> Iterator[None]:
    """torch's intra-op threads set to `count` while the block runs (0: left as they are), restored after.

    Inductor's `cpp.threads` is set to the same count: the code it generates is the same, but torch 2.9.1 leaves
    the thread count out of the FX graph cache's key (2.15.0 keys on it), so that without it a compile for one
    count could be served the code generated for another."""
    before = torch.get_num_threads()
    if not count:
        yield
        return
    from torch._inductor import config as inductor_config

    torch.set_num_threads(count)
    try:
        with inductor_config.patch({"cpp.threads": count}):
            yield
    finally:
        torch.set_num_threads(before)


def with_threads(run: Callable[..., T]) -> Callable[..., T]:
    """`run(case, ...)` under the case's intra-op threads (`RunSpec.threads`): Inductor generates its CPU code for them."""

    @functools.wraps(run)
    def call(case: Case, *args: Any, **kwargs: Any) -> T:
        with intra_op_threads(case.run.threads):
            return run(case, *args, **kwargs)

    return call


@with_threads
def run_case(case: Case, target: Target, device: str | None = None, want_trace: bool = False, bounds: Bounds | None = None) -> Outcome:
    """The case's outcome on `target` (judged, no search); an accuracy finding comes with its analysis (culprit and cause)."""
    return analyse_case(case, target, device, judge_case(case, target, device, want_trace), bounds=bounds)


@with_threads
def judge_case(case: Case, target: Target, device: str | None = None, want_trace: bool = False) -> Outcome:
    """The case judged on one compile, not analysed: its first size, then (after a clean first size) its second."""
    device = _device(case, device)
    target = configured(target, case.run)
    samples = case.tensors()
    try:
        program = CompiledProgram(case.graph, target, device, grad=case.run.grad)
    except GraphError as exc:
        return Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    return _second_size(case, program, judge(program, samples, want_trace, case.grad_tensors()))


def _second_size(case: Case, program: CompiledProgram, first: Outcome) -> Outcome:
    """The second size's outcome after a clean first size, on the same compile (it keeps the first's); else the first's.
    With gradients, the backward is judged there too (a stale scalar may show only in it, pytorch#194976)."""
    if not case.has_second_call or not first.clean:
        return first
    second = judge_second_size(program, case.second_graph(), case.second_tensors(), case.second_grad_tensors())
    second.first = first
    return second


@with_threads
def analyse_case(case: Case, target: Target, device: str | None, outcome: Outcome, samples: list | None = None, bounds: Bounds | None = None) -> Outcome:
    """The analysed outcome of `judge_case`: the first size's, or the second size's when only it is a finding
    (else the first's, with the second size's verdict noted). `samples`: the first size's, searched ones included."""
    device = _device(case, device)
    target = configured(target, case.run)
    bounds = active_bounds() if bounds is None else bounds
    if outcome.first is None:
        return analyse(case.graph, case.tensors() if samples is None else samples, target, device, outcome, bounds, case.grad_tensors())
    if outcome.verdict.is_finding:
        outcome = analyse(case.second_graph(), case.second_tensors(), target, device, outcome, bounds, case.second_grad_tensors())
        if outcome.verdict.is_finding:
            return outcome
    first = outcome.first
    first.second_size = second_size_note(outcome)
    return first


def search_rng(case: Case) -> np.random.Generator:
    """The input search's draws for `case`: its own stream (a guided child's, not its root's), so a campaign's search is reproducible."""
    return np.random.Generator(np.random.PCG64(CaseAddress.recorded(case.provenance, case.content_hash).seed_of(SEARCH)))


def with_searched(case: Case, outcome: Outcome) -> Case:
    """The case with the samples its search added, bit for bit, and a note of them in its provenance."""
    if not outcome.searched:
        return case
    # the case's own samples stay as stored; an expanded input stores what its layout held (its first slice, repeated)
    added = [[encode(conformed(t, spec)) for t, spec in zip(sample, case.graph.inputs)] for sample in outcome.searched]
    provenance = {**case.provenance, "searched_samples": len(outcome.searched)}
    return Case(case.graph, case.samples + added, case.run, recipes=case.recipes, provenance=provenance, grads=case.grads, second=case.second)


@with_threads
def search_case(case: Case, target: Target, device: str | None = None, bounds: Bounds | None = None) -> tuple[Case, Outcome]:
    """As `run_case`, with the search phase on a clean verdict (its share from the run specification):
    the case to keep (with what the search added) and its outcome."""
    if case.run.grad:  # the search draws inputs, not upstream gradients: with gradients it is off
        return case, run_case(case, target, device, bounds=bounds)
    device = _device(case, device)
    target = configured(target, case.run)
    samples = case.tensors()
    try:
        program = CompiledProgram(case.graph, target, device)
    except GraphError as exc:
        return case, Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    outcome = judge(program, samples)
    outcome = search_phase(program, samples, outcome, search_budget(case.run.search, len(case.samples)), search_rng(case))
    case = with_searched(case, outcome)
    return case, analyse_case(case, target, device, _second_size(case, program, outcome), samples + outcome.searched, bounds)
