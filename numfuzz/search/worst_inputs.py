"""The search toward the worst error: extra runs of one compiled graph on inputs where the target parts from eager.

After a graph's random samples are judged clean, a bounded number of extra runs (a share of the
samples; runs cost milliseconds, compiles seconds) look for inputs where the target's error
grows against eager's. As Herbie does, the first half samples across exponents; the second
narrows around the best point so far, once there is one where the target is worse, with small moves (a power of two, a few ULPs, a value
repeated across a seam, a row's largest value moved into the tail), keeping a move when the
score does not drop. The score of one sample is the bits the target loses to eager there: the
log2 ratio of their largest errors in ULPs against the float64 reference, as the verdict rule
measures them; a non-finite target where eager is finite scores infinity and ends the search.

What it returns is only a proposal: the caller adds the best samples to the case and judges the
whole with the usual rule (`numfuzz.judge.oracle`), so a finding it makes is judged as any other
and its inputs are stored bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import numpy as np
import torch

from numfuzz.judge.compiled import CompiledProgram, as_tuple
from numfuzz.judge.oracle import ulp_error
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.search.moves import Sample, explore, move

KEEP = 4  # samples added to a case at most: the best distinct ones
KEEP_BITS = 1.0  # a sample is worth adding when the target loses more than this to eager there


@dataclass
class Found:
    """The best samples the search ran, with what each side computed on them (outputs as tuples)."""

    samples: list[Sample] = field(default_factory=list)
    eager: list[tuple] = field(default_factory=list)
    reference: list[tuple] = field(default_factory=list)
    target: list[tuple] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    runs: int = 0


def _flat(t: torch.Tensor) -> np.ndarray:
    return t.detach().to("cpu", torch.float64).reshape(-1).numpy()


def sample_score(out_dtypes: list[str], reference: tuple, eager: tuple, target: tuple) -> float:
    """Bits the target loses to eager on one sample, over its outputs (inf: non-finite where eager is finite)."""
    best = -math.inf
    for dtype, r, e, t in zip(out_dtypes, reference, eager, target):
        if is_integer(dtype):  # exact: right, or every bit lost
            if not torch.equal(e, t):
                return math.inf
            continue
        fmt = check_dtype(dtype)
        r, e, t = _flat(r), _flat(e), _flat(t)
        keep = np.isfinite(r) & (np.abs(r) <= fmt.max_value)
        if not keep.any():
            continue
        r, e, t = r[keep], e[keep], t[keep]
        if bool((np.isfinite(e) & ~np.isfinite(t)).any()):
            return math.inf
        both = np.isfinite(e) & np.isfinite(t)
        if not both.any():
            continue
        t_err, e_err = float(ulp_error(t, r, fmt)[both].max()), float(ulp_error(e, r, fmt)[both].max())
        best = max(best, math.log2((t_err + 0.5) / (e_err + 0.5)))
    return best


class GraphSearch:
    """The search on one graph, one candidate at a time: `propose` one, run it, `record` what the target gave."""

    def __init__(self, program: CompiledProgram, samples: list[Sample], budget: int, rng: np.random.Generator):
        """`program` gives eager and the float64 reference; the target's runs come from the caller (alone, or a batch's)."""
        self.program, self.samples, self.out_dtypes = program, samples, program.out_dtypes
        self.budget, self.rng, self.runs = budget, rng, 0
        self.positive = [bool(all((s[i] > 0).all() for s in samples)) for i in range(len(samples[0]))]
        self.best: tuple[float, Sample] | None = None
        self.kept: list[tuple[float, Sample, tuple, tuple, tuple]] = []

    @property
    def done(self) -> bool:
        return self.runs >= self.budget or (self.best is not None and self.best[0] == math.inf)

    def propose(self) -> Sample | None:
        """The next candidate, or None when the budget is spent or a non-finite result ended the search."""
        if self.done:
            return None
        self.runs += 1
        best = self.best
        if self.runs <= self.budget // 2 or best is None or best[0] <= 0:  # nothing to narrow around yet: keep sampling
            return explore(self.samples[int(self.rng.integers(len(self.samples)))], self.positive, self.rng)
        return move(best[1], self.positive, self.rng)

    def record(self, candidate: Sample, target: tuple | None) -> None:
        """Score a candidate by what the target gave (None: it raised: a candidate lost, not a finding)."""
        if target is None:
            return
        try:
            eager, reference = self.program.eager(candidate), self.program.reference(candidate)
        except Exception:  # eager refuses these values
            return
        if len(target) != len(eager) or any(t.shape != e.shape or t.dtype != e.dtype for t, e in zip(target, eager)):
            return
        score = sample_score(self.out_dtypes, reference, eager, target)
        if self.best is None or score >= self.best[0]:
            self.best = (score, candidate)
        if score > KEEP_BITS:
            self.kept.append((score, candidate, eager, reference, target))

    def found(self) -> Found:
        """The best candidates (up to KEEP, each losing more than KEEP_BITS to eager), best first."""
        found = Found(runs=self.runs)
        for score, candidate, eager, reference, target in sorted(self.kept, key=lambda item: -item[0])[:KEEP]:
            found.samples.append([x.to("cpu") for x in candidate])
            found.eager.append(eager)
            found.reference.append(reference)
            found.target.append(target)
            found.scores.append(score)
        return found


def search_worst(program: CompiledProgram, samples: list[Sample], budget: int, rng: np.random.Generator) -> Found:
    """Spend at most `budget` runs of the compiled program on new inputs (samples on its device); the best come back."""
    search = GraphSearch(program, samples, budget, rng)
    while (candidate := search.propose()) is not None:
        search.record(candidate, _run(partial(program.run, candidate)))
    return search.found()


def search_together(run_all: Callable[[list[Sample]], list[tuple]], searches: list[GraphSearch]) -> list[Found]:
    """Search several graphs compiled as one program: each round runs the program once, on one candidate per graph.

    A graph whose search is over runs on its first sample meanwhile; `run_all` gets one sample per
    graph and gives back each graph's outputs.
    """
    while True:
        proposed = [search.propose() for search in searches]
        if all(c is None for c in proposed):
            return [search.found() for search in searches]
        inputs = [c if c is not None else search.samples[0] for c, search in zip(proposed, searches)]
        outputs = _run(partial(run_all, inputs)) or [None] * len(searches)
        for search, candidate, got in zip(searches, proposed, outputs):
            if candidate is not None:
                search.record(candidate, got)


def _run(call: Callable) -> Any:
    with torch.no_grad():
        try:
            return as_tuple(call())
        except Exception:  # the target refuses these values: candidates lost, not a finding
            return None


def search_budget(share: float, samples: int) -> int:
    """Extra runs for a graph of `samples` random samples: the share of them, at least one when on."""
    return max(1, round(share * samples)) if share > 0 else 0
