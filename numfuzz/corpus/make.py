"""From a seed to a runnable case, and from a case to an outcome on a target."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.environment import provenance as environment_provenance
from numfuzz.judge.analysis import analyse
from numfuzz.judge.execute import Explore, Outcome, evaluate
from numfuzz.program.generator import GenConfig, draw_samples, generate
from numfuzz.program.values import encode, round_to
from numfuzz.search.worst_inputs import search_budget, search_worst
from numfuzz.targets import Target

MIRROR_EVERY = 4  # with seams on, every fourth sample repeats values across a seam


def make_case(seed: int, target: str, samples: int, config: GenConfig | None = None, device: str = "cpu", imports: Sequence[str] = ()) -> Case:
    """The case for `seed`: graph, recipes and exactly rounded input values.

    `imports` are the --import modules/files the target needs; repro scripts import them too.
    """
    graph, recipes = generate(seed, config)
    drawn = draw_samples(graph, recipes, seed, samples, mirror_every=MIRROR_EVERY if config is not None and config.seams else 0)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    provenance = {"seed": seed, **environment_provenance(device), "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if imports:
        provenance["imports"] = list(imports)
    return Case.from_tensors(graph, tensors, target, recipes=recipes, provenance=provenance)


def run_case(case: Case, target: Target, device: str, want_trace: bool = False) -> Outcome:
    """The case's outcome on `target`; an accuracy finding comes with its analysis (culprit and cause)."""
    samples = case.tensors()
    return analyse(case.graph, samples, target, device, evaluate(case.graph, samples, target, device, want_trace))


def search_rng(case: Case) -> np.random.Generator:
    """The input search's draws for `case`: seeded by the case, so a campaign's search is reproducible."""
    seed = int(case.provenance["seed"]) if str(case.provenance.get("seed", "")).isdigit() else int(case.content_hash()[:15], 16)
    return np.random.Generator(np.random.PCG64(seed ^ 0x5EA4C4))


def explorer(case: Case, share: float) -> Explore | None:
    """The input search for `case` (None when off), its budget a share of the samples."""
    budget = search_budget(share, len(case.samples))
    if not budget:
        return None
    rng = search_rng(case)

    def explore(run_target, eager_fn, reference_fn, samples, out_dtypes):
        return search_worst(run_target, eager_fn, reference_fn, samples, out_dtypes, budget, rng)

    return explore


def with_searched(case: Case, outcome: Outcome) -> Case:
    """The case with the samples its search added, bit for bit, and a note of them in its provenance."""
    if not outcome.searched:
        return case
    added = [[encode(t) for t in sample] for sample in outcome.searched]  # the case's own samples stay as stored
    provenance = {**case.provenance, "searched_samples": len(outcome.searched)}
    return Case(case.graph, case.samples + added, case.target, recipes=case.recipes, provenance=provenance)


def search_case(case: Case, target: Target, device: str, share: float) -> tuple[Case, Outcome]:
    """As `run_case`, with the input search on a clean verdict: the case to keep (with what the search added) and its outcome."""
    samples = case.tensors()
    outcome = evaluate(case.graph, samples, target, device, explore=explorer(case, share))
    case = with_searched(case, outcome)
    return case, analyse(case.graph, samples + outcome.searched, target, device, outcome)
