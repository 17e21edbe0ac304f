"""Several generated cases compiled as one program, for targets whose compiles cost less together.

One compile of K independent graphs costs Inductor fewer seconds per graph than K compiles: its
fixed cost per compile is shared. The batch is a wrapper that calls each graph's lowered function
on its own inputs and returns every output in one tuple. Each case is then judged by the usual
`evaluate`, with a stand-in target that hands back what the batch computed for it, so the oracle
is exactly the one a case alone gets. Only a clean verdict (equal or more_accurate) is taken
from a batch: any other verdict, and every case of a batch that fails to compile or run, is run
again alone, so that a finding reproduces on its own and no verdict depends on batching. A batch
that kills its worker (segfault, hang) comes back to the campaign, which runs its cases alone.
The input search (`numfuzz.search`) of the cases the batch judged clean runs on the batch's
compile, one run of the batch a round for all of them; a case where it finds a difference is
judged alone, with the samples it found.
"""

from __future__ import annotations

import linecache
import time
from functools import partial
from typing import Any, Callable

import torch

from numfuzz.campaign.process_metrics import cpu_seconds, rss_bytes
from numfuzz.campaign.timed_target import TimedTarget
from numfuzz.corpus.case import Case
from numfuzz.corpus.make import search_rng, with_searched
from numfuzz.judge.execute import CLEAN, Outcome, evaluate
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.search.worst_inputs import Found, GraphSearch, search_budget, search_together


class Replay:
    """A stand-in target: `prepare` gives a function that returns, call by call, what the batch computed."""

    def __init__(self, name: str, results: list[tuple]):
        self.name = name
        self.results = results

    def available(self) -> tuple[bool, str]:
        return True, ""

    def reset(self) -> None:
        pass

    def prepare(self, fn: Callable, device: str) -> Callable:
        calls = iter(self.results)
        return lambda *args: next(calls)

    def final_trace(self, compiled: Callable) -> str | None:
        return None


def batch_source(cases: list[Case]) -> str:
    """`def batch(*args)`: each case's inputs in turn; returns each case's outputs in turn."""
    parts, lines, at = [], ["def batch(*args):", "    out = ()"], 0
    for k, case in enumerate(cases):
        parts.append(lower(case.graph, fn_name=f"g{k}"))
        n = len(case.graph.inputs)
        lines.append(f"    out += g{k}(*args[{at}:{at + n}])")
        at += n
    lines.append("    return out")
    return "\n".join(parts + lines) + "\n"


def _eager_runs(case: Case, device: str) -> bool:
    """Well typed and eager runs on every sample: else the case, alone, says invalid without the target."""
    try:
        infer_specs(case.graph)
        fn = compile_source(lower(case.graph))
        with torch.no_grad():
            for sample in case.tensors():
                fn(*[x.to(device) for x in sample])
    except Exception:
        return False
    return True


def _run_members(compiled: Callable, samples: list[list[list[torch.Tensor]]], members: list[Case], searched: list[int]) -> Callable:
    """Run the batch on one new sample for each member in `searched` (the others on their first); their outputs come back."""
    bounds, at = [], 0
    for case in members:
        bounds.append((at, at + len(case.graph.outputs)))
        at += len(case.graph.outputs)

    def run(new: list[list[torch.Tensor]]) -> list[tuple]:
        chosen = dict(zip(searched, new))
        got = compiled(*[x for j, own in enumerate(samples) for x in chosen.get(j, own[0])])
        got = tuple(got) if isinstance(got, (tuple, list)) else (got,)
        return [got[bounds[j][0] : bounds[j][1]] for j in searched]

    return run


def _search_clean(compiled: Callable, samples: list, members: list[Case], clean: list[int], share: float) -> dict[int, Found]:
    """The input search of every clean member at once, one batch run a round; member -> what its search found."""
    searches = []
    for m in clean:
        graph = members[m].graph
        specs = infer_specs(graph)
        searches.append(GraphSearch(
            compile_source(lower(graph)), compile_source(lower(graph, reference=True)), samples[m], [specs[o].dtype for o in graph.outputs],
            search_budget(share, len(samples[m])), search_rng(members[m]),
        ))  # fmt: skip
    found = search_together(_run_members(compiled, samples, members, clean), searches)
    return {m: f for m, f in zip(clean, found) if f.samples}


def evaluate_batch(cases: list[Case], target: Any, device: str, search: float = 0.0) -> tuple[list[Outcome | None], dict[int, Case]]:
    """Per case: its outcome when the batch judged it clean, None when it must run alone.

    With `search` on, each case's input search runs on the batch's compile; a case where it finds
    a difference comes back in the dict, with the samples it found, to be judged alone.
    """
    batched = [k for k, case in enumerate(cases) if _eager_runs(case, device) and len(case.samples) == len(cases[0].samples)]
    outcomes: list[Outcome | None] = [None] * len(cases)
    alone: dict[int, Case] = {}
    if len(batched) < 2:
        return outcomes, alone
    members = [cases[k] for k in batched]
    samples = [[[x.to(device) for x in sample] for sample in case.tensors()] for case in members]
    rows = len(samples[0])
    wrapper = compile_source(batch_source(members), "batch")
    target.reset()
    results: list[list[tuple]] = [[] for _ in members]
    started = time.perf_counter()
    compile_s = 0.0
    try:
        compiled = target.prepare(wrapper, device)
        with torch.no_grad():
            for i in list(range(rows)) + [0]:  # the first sample twice, as `evaluate` checks determinism
                got = compiled(*[x for sample in samples for x in sample[i]])
                got = tuple(got) if isinstance(got, (tuple, list)) else (got,)
                if not compile_s:
                    compile_s = time.perf_counter() - started
                at = 0
                for m, case in enumerate(members):
                    n = len(case.graph.outputs)
                    results[m].append(got[at : at + n])
                    at += n
    except Exception:  # a compile or run failure: each case alone shows whose it is
        return outcomes, alone
    run_s = time.perf_counter() - started - compile_s
    clean: dict[int, Outcome] = {}
    for m in range(len(members)):
        outcome = evaluate(members[m].graph, members[m].tensors(), Replay(target.name, results[m]), device)
        if outcome.verdict in CLEAN:
            outcome.compile_s, outcome.run_s = compile_s / len(members), run_s / len(members)
            clean[m] = outcome
    found: dict[int, Found] = {}
    if search and clean:
        try:
            found = _search_clean(compiled, samples, members, sorted(clean), search)
        except Exception:  # numfuzz's own failure while searching: the batch's verdicts stand
            found = {}
    for m, outcome in clean.items():
        k = batched[m]
        if m in found:  # judged again with what the search found, by the usual rule
            again = evaluate(members[m].graph, members[m].tensors(), Replay(target.name, results[m]), device, explore=partial(_given, found[m]))
            if again.verdict not in CLEAN:
                alone[k] = with_searched(members[m], again)
                continue
        outcomes[k] = outcome
    return outcomes, alone


def _given(found: Found, *args: Any) -> Found:
    """An explore hook that hands back what a search already found."""
    return found


def run_batch(worker: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """A worker's reply to a `batch` message: one `result` reply per case, as `run_case` gives alone.

    `worker` is the worker's WorkerTasks (targets, samples, generator settings, run_case).
    """
    from numfuzz.corpus.make import make_case

    target, items = msg["target"], msg["items"]
    start_cpu, start_wall = cpu_seconds(), time.perf_counter()
    cases: list[Case | None] = []
    for item in items:
        try:
            cases.append(make_case(item["seed"], target, worker.samples, worker.gen, worker.device, worker.imports))
        except Exception:  # run alone, it reports numfuzz's own error as usual
            cases.append(None)
    generated = cpu_seconds()
    timed = TimedTarget(worker.targets[target])
    made = [k for k, case in enumerate(cases) if case is not None]
    try:
        judged, searched = evaluate_batch([cases[k] for k in made], timed, worker.device, worker.gen.search)
    except Exception:  # numfuzz's own failure while batching: alone, each case reports it
        judged, searched = [None] * len(made), {}
    outcomes: dict[int, Outcome] = {k: outcome for k, outcome in zip(made, judged) if outcome is not None}
    clean = max(len(outcomes), 1)
    shared_cpu, shared_wall = cpu_seconds() - generated, time.perf_counter() - start_wall
    target_cpu = timed.compile_cpu + timed.run_cpu
    replies, recycle = [], False
    for k, item in enumerate(items):
        if k not in outcomes:
            with_found = searched.get(made.index(k)) if k in made else None  # the case with what its search found
            reply = worker.run_case({"index": item["index"], "seed": item["seed"], "target": target}, made=with_found)
            recycle = recycle or reply.pop("recycle", False)
            replies.append(reply)
            continue
        case = cases[k]
        replies.append({
            "kind": "result", "index": item["index"], "target": target, "outcome": outcomes[k].to_json(), "batched": len(judged),
            "ops": sorted({node.op for node in case.graph.nodes}), "samples": len(case.samples), "wall": shared_wall / clean,
            "cpu": {
                "generate": (generated - start_cpu) / len(items), "target_compile": timed.compile_cpu / clean,
                "target_run": timed.run_cpu / clean, "eval": max(shared_cpu - target_cpu, 0.0) / clean, "housekeeping": 0.0,
            },
        })  # fmt: skip
    linecache.clearcache()
    rss = rss_bytes()
    return {"kind": "batch", "target": target, "replies": replies, "rss": rss, "recycle": recycle or worker.recycle.should_leave(rss)}
