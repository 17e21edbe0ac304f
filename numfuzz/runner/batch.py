"""Several generated cases compiled as one program, for targets whose compiles cost less together.

One compile of K independent graphs costs Inductor fewer seconds per graph than K compiles: its
fixed cost per compile is shared. The batch is the graphs side by side as one graph (each on its
own inputs, every output in one tuple), compiled once. Each case is then judged by the usual rule
(`judge_runs`) on what the batch computed for it, so the oracle is exactly the one a case alone
gets. Only a clean verdict (equal or more_accurate) is taken from a batch: any other verdict,
and every case of a batch that fails to compile or run, is run again alone, so that a finding
reproduces on its own and no verdict depends on batching. A batch that kills its worker
(segfault, hang) comes back to the campaign, which runs its cases alone.
The input search (`numfuzz.search`) of the cases the batch judged clean runs on the batch's
compile, one run of the batch a round for all of them; a case where it finds a difference is
judged alone, with the samples it found. The cases handed over together are split by `batch_key`:
cases that share their size mode, drawn options and threads compile as one batch (a campaign draws
them per block of cases, `CaseAddress.shared`, so they do), cut where the members' values together
would pass one case's judge budget; a member with fewer samples than another is fed its own again.
A batch whose cases are called a second time (torch.compile's default `automatic` mode at a second
size, or second scalars) is called so once a sample, every member at its second size or with its
second scalars, and the compile count says whether the batch recompiled, as alone. Symbolic sizes
(dynamic, marked) compile without duck sizing, so that no two members share a symbol. Cases that judge their gradients batch with each other:
the batch's compiled forward and backward give every member's outputs and input gradients in one
call, for every member's upstream gradients (the members share no value, so no gradient crosses
between them); as alone, they are not searched, and a second call judges their gradients too.
"""

from __future__ import annotations

import contextlib
import copy
import time

import torch

from numfuzz.corpus.case import Case
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, eager_and_reference, judge_runs
from numfuzz.judge.second_size import noted_second_call, second_size_note
from numfuzz.program.graph_edit import side_by_side
from numfuzz.program.ir import Graph
from numfuzz.program.model_scale import JUDGE_ELEMENTS, case_elements, value_elements
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import intra_op_threads, search_rng, with_searched
from numfuzz.search.phase import with_found
from numfuzz.search.worst_inputs import Found, GraphSearch, search_budget, search_together
from numfuzz.targets import Target
from numfuzz.targets.compile_modes import configured

Sample = list[torch.Tensor]


# Element-runs a batch may repeat of one member (its values' elements times the rounds past its own samples) before the
# member goes to another batch. Here a compile more cost about what 2**27 element-runs did (7-8 ns each, Inductor on one
# CPU core; docs/benchmarks.md, "numfuzz's own work at 13%").
REPEAT_ELEMENTS = 2**27


def batch_key(case: Case) -> tuple:
    """What the members of one batch share: one compile (size mode, drawn options, threads), whether gradients are judged,
    and whether a second call is (a batch calls every member a second time or none).

    Members may hold different numbers of samples (a large case or a window takes fewer): the batch runs as many
    rounds as its largest member, and a member with fewer is fed its own samples again, their results dropped
    (`_by_rounds` keeps that repeated work small).
    Symbolic sizes (dynamic, marked) batch with Dynamo's duck sizing off (`_symbolic_batch`): with it, equal sizes
    in two members got one symbol, so one member's second size failed a guard another set and the batch recompiled
    where alone it would not (a planted second-size bug went unseen in such batches)."""
    run = case.run
    return (run.dynamic, run.compiler_options, run.threads, run.grad, case.has_second_call)


def _symbolic_batch(cases: list[Case], members: list[CompiledProgram]) -> tuple[RunSpec, contextlib.AbstractContextManager]:
    """The batch's run (a marked case's dims at its inputs' places in the batch) and the context its compile needs:
    with symbolic sizes, no duck sizing, so that each member's sizes are its own symbols, related only by its own ops."""
    run = cases[0].run
    if run.dynamic not in ("dynamic", "marked"):
        return run, contextlib.nullcontext()
    from torch.fx.experimental import _config as symbolic_config

    at, marked = 0, []
    for case, member in zip(cases, members):
        marked += [(at + i, d) for i, d in case.run.marked]
        at += len(member.graph.inputs)
    return run.with_changes(marked=tuple(marked)), symbolic_config.patch(use_duck_shape=False)


def _member(case: Case, target: Target, device: str) -> tuple[CompiledProgram, tuple[list, list], list[Sample] | None, list[Sample]] | None:
    """The case's own program with its eager and float64 runs, (with gradients) its upstream gradients on the device and
    the samples on the device that eager ran on (the batch runs on the same tensors: `judge.metadata` compares aliasing),
    when it is well typed and eager runs on every sample; else it runs alone."""
    try:
        program = CompiledProgram(case.graph, target, device, grad=case.run.grad)
        upstream = [program.on_device(row) for row in case.grad_tensors()] if case.run.grad else None
        if upstream is not None and len(upstream) != len(case.samples):
            return None  # `judge` says why, alone
        samples = [program.on_device(sample) for sample in case.tensors()]
        runs = eager_and_reference(program, samples, upstream)
    except Exception:
        return None
    return None if isinstance(runs, Outcome) else (program, runs, upstream, samples)


class _Batch:
    """The members side by side as one compiled program, and how its outputs split back into each member's."""

    def __init__(self, members: list[CompiledProgram], target: Target, device: str):
        self.grad = members[0].grad
        self.program = CompiledProgram(side_by_side([m.graph for m in members]), target, device, grad=self.grad)
        self.bounds, self.input_bounds, at, at_input = [], [], 0, 0
        for member in members:
            self.bounds.append((at, at + len(member.graph.outputs)))
            self.input_bounds.append((at_input, at_input + len(member.graph.inputs)))
            at += len(member.graph.outputs)
            at_input += len(member.graph.inputs)
        self.outputs = at

    def at_size(self, graphs: list[Graph]) -> _Batch:
        """The same compiled batch, called with each member's second-call graph (its second size, its second scalars)."""
        view = copy.copy(self)
        view.program = self.program.at_size(side_by_side(graphs))
        return view

    def run(self, inputs: list[Sample], upstream: list[Sample] | None = None) -> list[tuple]:
        """One run on one sample per member; each member's outputs, then (with gradients, for each member's
        `upstream` gradients) its inputs' gradients, as the member alone gives them."""
        flat = [x for sample in inputs for x in sample]
        if not self.grad:
            got = self.program.run(flat)
            return [got[lo:hi] for lo, hi in self.bounds]
        got = self.program.run_grads(flat, [g for row in upstream or [] for g in row])
        grads = got[self.outputs :]
        return [got[lo:hi] + grads[a:b] for (lo, hi), (a, b) in zip(self.bounds, self.input_bounds)]


def _rounds(batch: _Batch, samples: list[list[Sample]], upstreams: list[list[Sample]] | None = None) -> list[list[tuple]]:
    """Each member's results on each of its samples, then on its first again (as `judge` checks determinism): as many
    runs as the largest member has samples, a member with fewer fed its own again (those results dropped)."""
    results: list[list[tuple]] = [[] for _ in samples]
    rounds = max(len(own) for own in samples)
    for i in list(range(rounds)) + [-1]:  # -1: the determinism round, every member's first sample
        picked = [max(i, 0) % len(own) for own in samples]
        upstream = [own[k] for own, k in zip(upstreams, picked)] if upstreams is not None else None
        for m, got in enumerate(batch.run([own[k] for own, k in zip(samples, picked)], upstream)):
            if i < len(samples[m]):
                results[m].append(got)
    return results


def _search_clean(
    batch: _Batch, members: list[CompiledProgram], cases: list[Case], samples: list[list[Sample]], clean: list[int], share: float
) -> dict[int, Found]:
    """The input search of every clean member at once, one batch run a round; member -> what its search found."""
    searches = [GraphSearch(members[m], samples[m], search_budget(share, len(samples[m])), search_rng(cases[m])) for m in clean]

    def run_all(new: list[Sample]) -> list[tuple]:
        chosen = dict(zip(clean, new))
        split = batch.run([chosen.get(m, own[0]) for m, own in enumerate(samples)])
        return [split[m] for m in clean]

    found = search_together(run_all, searches)
    return {m: f for m, f in zip(clean, found) if f.samples}


def evaluate_batch(cases: list[Case], target: Target, device: str, search: float = 0.0) -> tuple[list[Outcome | None], dict[int, Case]]:
    """Per case: its outcome when a batch judged it clean, None when it must run alone.

    The cases that share a `batch_key` are one batch each, compiled under their size mode, options and threads,
    and called a second time when they are (each member at its second size or with its second scalars).
    With `search` on, each case's input search runs on its batch's compile; a case where it finds
    a difference comes back in the dict, with the samples it found, to be judged alone.
    """
    outcomes: list[Outcome | None] = [None] * len(cases)
    alone: dict[int, Case] = {}
    groups: dict[tuple, list[int]] = {}
    for k, case in enumerate(cases):
        groups.setdefault(batch_key(case), []).append(k)
    for members in (piece for group in groups.values() for part in _by_rounds(group, cases) for piece in _within_memory(part, cases)):
        if len(members) < 2:
            continue
        with intra_op_threads(cases[members[0]].run.threads):
            judged, found = _evaluate_group([cases[k] for k in members], target, device, search)
        for m, k in enumerate(members):
            outcomes[k] = judged[m]
        alone.update({members[m]: case for m, case in found.items()})
    return outcomes, alone


def _by_rounds(members: list[int], cases: list[Case]) -> list[list[int]]:
    """The members cut so that no batch repeats much of a member's work: a batch runs as many rounds as its member with
    the most samples, and one with fewer is computed again, its results dropped, on every round past its own count.
    Taken by sample count from the most down, the members of one count join the batch before them unless the repeats
    of one would pass `REPEAT_ELEMENTS`; else they start the next (a large case's few samples, a window's). A part of
    one member runs alone."""
    counts: dict[int, list[int]] = {}
    for k in members:
        counts.setdefault(len(cases[k].samples), []).append(k)
    parts: list[tuple[int, list[int]]] = []  # (the part's rounds, its members)
    for count in sorted(counts, reverse=True):
        same = counts[count]
        if parts and all((parts[-1][0] - count) * value_elements(cases[k].graph) <= REPEAT_ELEMENTS for k in same):
            parts[-1][1].extend(same)
        else:
            parts.append((count, list(same)))
    return [sorted(part) for _, part in parts]


def _within_memory(members: list[int], cases: list[Case]) -> list[list[int]]:
    """The members in turn, cut where the next would take the batch's values past a case's judge budget: a batch holds
    every member's values at once, and a case's own budget (`model_scale.JUDGE_ELEMENTS`) is what a worker has room for."""
    parts: list[list[int]] = [[]]
    held = 0
    for k in members:
        size = case_elements(cases[k].graph, len(cases[k].samples))
        if parts[-1] and held + size > JUDGE_ELEMENTS:
            parts.append([])
            held = 0
        parts[-1].append(k)
        held += size
    return parts


def _second_call(batch: _Batch, members: list[CompiledProgram], cases: list[Case]) -> dict[int, Outcome]:
    """Every member's second call on the same compiled batch, judged as `judge_second_size` judges one alone;
    member -> outcome, none for a member whose eager fails there (it runs alone). With symbolic sizes, none when
    the batch recompiled: one member's failed guard (a size-1 dim's stride, say) would have every member judged on
    a new compile where alone most run the first one, and a bug at the second size goes unseen."""
    graphs = [case.second_graph() for case in cases]
    views = [member.at_size(graph) for member, graph in zip(members, graphs)]
    samples = [[view.on_device(row) for row in case.second_tensors()] for view, case in zip(views, cases)]
    upstreams = [[view.on_device(row) for row in case.second_grad_tensors()] for view, case in zip(views, cases)] if batch.grad else None
    baselines = [eager_and_reference(view, rows, upstreams[m] if upstreams else None) for m, (view, rows) in enumerate(zip(views, samples))]
    called = batch.at_size(graphs)
    before = batch.program.compiles()
    results = _rounds(called, samples, upstreams)
    after = batch.program.compiles()
    recompiled = None if before is None or after is None else after > before
    if recompiled and cases[0].run.dynamic in ("dynamic", "marked"):
        return {}
    judged = {}
    for m, baseline in enumerate(baselines):
        if not isinstance(baseline, Outcome):
            inputs = None if batch.grad else samples[m][0]
            outcome = judge_runs(views[m], samples[m], *baseline, results[m][:-1], results[m][-1], inputs)
            judged[m] = noted_second_call(outcome, members[m].graph, graphs[m], recompiled)
    return judged


def _evaluate_group(cases: list[Case], target: Target, device: str, search: float) -> tuple[list[Outcome | None], dict[int, Case]]:
    """`evaluate_batch` for cases of one batch key."""
    judged = [_member(case, target, device) for case in cases]
    batched = [k for k, member in enumerate(judged) if member is not None]
    outcomes: list[Outcome | None] = [None] * len(cases)
    alone: dict[int, Case] = {}
    if len(batched) < 2:
        return outcomes, alone
    members = [judged[k][0] for k in batched]
    baselines = [judged[k][1] for k in batched]
    upstreams = [judged[k][2] for k in batched]
    member_cases = [cases[k] for k in batched]
    grad = member_cases[0].run.grad  # as alone, a case with gradients is not searched
    samples = [judged[k][3] for k in batched]
    started = time.perf_counter()
    run, compiling = _symbolic_batch(member_cases, members)
    try:
        with compiling:
            batch = _Batch(members, configured(target, run), device)
            results = _rounds(batch, samples, upstreams if grad else None)
    except Exception:  # a compile or run failure: each case alone shows whose it is
        return outcomes, alone
    compile_s = batch.program.compile_s
    run_s = time.perf_counter() - started - compile_s
    clean: dict[int, Outcome] = {}
    for m, member in enumerate(members):
        inputs = None if grad else samples[m][0]
        # the samples eager and the batch ran on (the case's own values, not decoded again): the position check reads them
        outcome = judge_runs(member, samples[m], *baselines[m], results[m][:-1], results[m][-1], inputs)
        if outcome.verdict.is_clean:
            outcome.compile_s, outcome.run_s = compile_s / len(members), run_s / len(members)
            clean[m] = outcome
    found: dict[int, Found] = {}
    if search and clean and not grad:
        try:
            with compiling:
                found = _search_clean(batch, members, member_cases, samples, sorted(clean), search)
        except Exception:  # numfuzz's own failure while searching: the batch's verdicts stand
            found = {}
    for m, outcome in list(clean.items()):
        if m in found:  # judged again with what the search found, by the usual rule
            again = with_found(members[m], outcome, found[m])
            if not again.verdict.is_clean:
                alone[batched[m]] = with_searched(member_cases[m], again)
                del clean[m]
    if clean and member_cases[0].has_second_call:
        try:
            with compiling:
                second = _second_call(batch, members, member_cases)
        except Exception:  # a failure at the second call: each case alone shows whose it is
            return outcomes, alone
        for m in list(clean):
            if m not in second or not second[m].verdict.is_clean:
                del clean[m]  # alone, the second call is judged and analysed as usual
            else:  # as `analyse_case` leaves a clean second call: the first size's outcome, with a note
                clean[m].second_size = second_size_note(second[m])
    for m, outcome in clean.items():
        outcomes[batched[m]] = outcome
    return outcomes, alone
