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
from typing import Callable

import numpy as np
import torch

from numfuzz.judge.oracle import ulp_error
from numfuzz.program.dtypes import check_dtype
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


def search_worst(
    run_target: Callable[[Sample], tuple],
    eager_fn: Callable,
    reference_fn: Callable,
    samples: list[Sample],
    out_dtypes: list[str],
    budget: int,
    rng: np.random.Generator,
) -> Found:
    """Spend at most `budget` target runs on new inputs; the best (up to KEEP, each losing > KEEP_BITS) come back."""
    positive = [bool(all((s[i] > 0).all() for s in samples)) for i in range(len(samples[0]))]
    tried: list[tuple[float, Sample, tuple, tuple, tuple]] = []
    best: tuple[float, Sample] | None = None
    runs = 0
    while runs < budget:
        if runs < budget // 2 or best is None or best[0] <= 0:  # nothing to narrow around yet: keep sampling
            candidate = explore(samples[int(rng.integers(len(samples)))], positive, rng)
        else:
            candidate = move(best[1], positive, rng)
        runs += 1
        with torch.no_grad():
            try:
                eager = _as_tuple(eager_fn(*candidate))
                reference = _as_tuple(reference_fn(*[x.to("cpu", torch.float64) for x in candidate]))
                target = _as_tuple(run_target(candidate))
            except Exception:  # eager or the target refuses these values: a candidate lost, not a finding
                continue
        if len(target) != len(eager) or any(t.shape != e.shape or t.dtype != e.dtype for t, e in zip(target, eager)):
            continue
        score = sample_score(out_dtypes, reference, eager, target)
        if best is None or score >= best[0]:
            best = (score, candidate)
        if score > KEEP_BITS:
            tried.append((score, candidate, eager, reference, target))
        if score == math.inf:
            break
    tried.sort(key=lambda item: -item[0])
    found = Found(runs=runs)
    for score, candidate, eager, reference, target in tried[:KEEP]:
        found.samples.append([x.to("cpu") for x in candidate])
        found.eager.append(eager)
        found.reference.append(reference)
        found.target.append(target)
        found.scores.append(score)
    return found


def _as_tuple(result: object) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def search_budget(share: float, samples: int) -> int:
    """Extra runs for a graph of `samples` random samples: the share of them, at least one when on."""
    return max(1, round(share * samples)) if share > 0 else 0
