"""New candidate inputs for the search: drawn across exponents, or moved a little from a good one.

Every candidate is a list of tensors in the inputs' own dtypes, so that what the search finds is
stored bit for bit. Moves work in float64 and round once to the input's dtype. Integer inputs
(class targets, indices) are never moved.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.program.dtypes import check_dtype
from numfuzz.program.seams import mirror
from numfuzz.program.values import dtype_name

Sample = list[torch.Tensor]
MODERATE = 10  # binary exponents within +-MODERATE


def _f64(x: torch.Tensor) -> np.ndarray:
    return x.detach().to("cpu", torch.float64).numpy().copy()


def _back(values: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(values)).to(like.dtype).reshape(like.shape).to(like.device)


def exponent_window(like: torch.Tensor, positive: bool, rng: np.random.Generator) -> torch.Tensor:
    """Values of one magnitude, its binary exponent drawn uniformly over the dtype's range (Herbie's sampling).

    Each input gets one centre and a narrow spread, so that a graph's values are coherent (a
    pow of a tiny base to a large exponent, say) rather than scattered over every scale at once.
    Half the centres come from the moderate exponents, where most ops neither overflow nor
    flush, and where a product of two inputs can still reach the dtype's edges.
    """
    fmt = check_dtype(dtype_name(like.dtype))
    top = int(np.floor(np.log2(fmt.max_value)))
    low, high = (fmt.min_exponent, top) if rng.random() < 0.5 else (max(fmt.min_exponent, -MODERATE), min(top, MODERATE))
    centre = int(rng.integers(low, high))
    spread = float(rng.choice((0.0, 0.5, 2.0)))
    n = like.numel()
    exponents = np.clip(centre + rng.uniform(-spread, spread, n), fmt.min_exponent, top - 1)
    values = np.exp2(exponents) * (1.0 + rng.uniform(0.0, 1.0, n))
    if not positive:
        values *= np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return _back(values.reshape(tuple(like.shape)), like)


def explore(base: Sample, positive: list[bool], rng: np.random.Generator) -> Sample:
    """A base sample with some of its inputs redrawn across exponents (at least one); integer inputs (indices) stay."""
    chosen = [bool(rng.random() < 0.5) for _ in base]
    if not any(chosen):
        chosen[int(rng.integers(len(base)))] = True
    return [exponent_window(x, pos, rng) if pick and x.numel() and x.is_floating_point() else x for x, pos, pick in zip(base, positive, chosen)]


def _scale(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return x * 2.0 ** int(rng.choice([-8, -4, -2, -1, 1, 2, 4, 8]))


def _nudge(x: np.ndarray, rng: np.random.Generator, eps: float) -> np.ndarray:
    """A few elements moved by a few ULPs: the narrowing around a good point."""
    flat = x.reshape(-1).copy()
    picks = rng.integers(flat.size, size=max(1, flat.size // 8))
    flat[picks] *= 1.0 + eps * rng.choice([-4, -2, -1, 1, 2, 4], size=picks.size)
    return flat.reshape(x.shape)


def _max_to_tail(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each row's largest element swapped into its last position: where a vector loop's scalar tail runs."""
    if x.ndim == 0 or x.shape[-1] < 2:
        return x
    rows = x.reshape(-1, x.shape[-1]).copy()
    at = np.argmax(rows, axis=1)
    last = rows.shape[1] - 1
    idx = np.arange(rows.shape[0])
    rows[idx, at], rows[idx, last] = rows[idx, last], rows[idx, at].copy()
    return rows.reshape(x.shape)


def _copy_element(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    flat = x.reshape(-1).copy()
    flat[int(rng.integers(flat.size))] = flat[int(rng.integers(flat.size))]
    return flat.reshape(x.shape)


MOVES = ("scale", "nudge", "max_to_tail", "copy", "mirror", "redraw")


def move(sample: Sample, positive: list[bool], rng: np.random.Generator) -> Sample:
    """One small move away from a good candidate; which move and which input are drawn."""
    kind = MOVES[int(rng.integers(len(MOVES)))]
    arrays = [_f64(x) for x in sample]
    if kind == "mirror":
        rank = max(a.ndim for a in arrays)
        moved = mirror(arrays, -1 if rank < 2 or rng.random() < 0.5 else -rank)
        return [_back(a, x) if x.is_floating_point() else x for a, x in zip(moved, sample)]
    sizable = [i for i, x in enumerate(sample) if x.numel() and x.is_floating_point()]
    if not sizable:
        return sample
    i = sizable[int(rng.integers(len(sizable)))]
    out = list(sample)
    if kind == "redraw":
        out[i] = exponent_window(sample[i], positive[i], rng)
        return out
    a = arrays[i]
    if kind == "scale":
        a = _scale(a, rng)
    elif kind == "nudge":
        a = _nudge(a, rng, check_dtype(dtype_name(sample[i].dtype)).eps)
    elif kind == "max_to_tail":
        a = _max_to_tail(a, rng)
    else:
        a = _copy_element(a, rng)
    moved = _back(a, sample[i])
    out[i] = moved if bool(torch.isfinite(moved).all()) else sample[i]  # past the dtype's range: no move
    return out
