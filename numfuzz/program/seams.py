"""Where compiled code has two paths for one value, and inputs placed on both sides of them.

Compilers compute the same value in more than one way: a loop's vector body and its scalar
tail, a reduction and the pointwise op that recomputes its input, a split reduction and its
combine, a GPU's full blocks and its last partial one. They agree on most inputs; the bugs sit
on the few where they do not (the `softmax(pow)` NaN is one). This module gives the generator
shapes whose sizes straddle those widths (in a row's length, or in the count of short rows), graphs where a reduction consumes a pointwise op it
may recompute, and samples whose tail repeats its body, so that both paths see the same values.
"""

from __future__ import annotations

import random

import numpy as np

# Vector widths in elements (AVX2 fp32 8, AVX-512 fp32 16, AVX-512 bf16/fp16 32) and a GPU
# warp (32); the GPU's block sizes (128, 256, 1024) straddle with the few rows that fit.
CPU_WIDTHS = (8, 16, 32)
GPU_WIDTHS = (32, 128, 256, 1024)
MAX_ELEMENTS = 4096  # the generator's limit for any value


def seam_size(rng: random.Random, device: str = "cpu") -> int:
    """A size k*w + r that straddles a vector width or block size w: a full body and a short tail."""
    width = rng.choice(GPU_WIDTHS if device == "cuda" else CPU_WIDTHS)
    body = width * rng.choice((1, 1, 2))
    tail = rng.choice((1, 1, width // 2 + 1, width - 1))
    if width >= 128:
        body = width
    return min(body + tail, MAX_ELEMENTS)


ODD_TAILS = range(9, 68)  # one dim past the generator's usual 8: 9 to 67, a vector loop's body and an odd tail


def odd_tail_shape(rng: random.Random, max_rank: int) -> tuple[int, ...]:
    """A small shape with one dim of 9 to 67 (the last, half the time), the others 1 or 2: a loop's tail past one
    vector without the many elements of a seam's long rows."""
    shape = [rng.randint(1, 2) for _ in range(rng.randint(1, max(1, max_rank)))]
    dim = len(shape) - 1 if rng.random() < 0.5 else rng.randrange(len(shape))
    shape[dim] = rng.choice(ODD_TAILS)
    return tuple(shape)


def seam_shape(rng: random.Random, max_rank: int, device: str = "cpu") -> tuple[int, ...]:
    """A shape with a seam: long rows whose length straddles a width, or many short rows whose count does.

    Inductor's CPU code vectorises a reduction along long rows, and across rows when they are
    short (a handful of elements): then the rows' count meets the vector width. The softmax(pow)
    NaN lives there, in 8 to 33 rows of 2 to 5.
    """
    if max_rank < 2 or rng.random() < 0.5:
        last = seam_size(rng, device)
        lead = [rng.randint(2, 4) for _ in range(rng.randint(0, max(0, min(max_rank, 3) - 1)))]
        while lead and last * int(np.prod(lead)) > MAX_ELEMENTS:
            lead.pop()
        return (*lead, last)
    inner = rng.randint(2, 5)
    return (min(seam_size(rng, device), MAX_ELEMENTS // inner), inner)


def tail_block(size: int) -> int:
    """How many elements to repeat at the end of a dim of `size`: its tail past the widest width it spans."""
    for width in sorted(CPU_WIDTHS + GPU_WIDTHS, reverse=True):
        if size > width and size % width:
            return min(size % width, size // 2)
    return max(1, size // 4)


def mirror(values: list[np.ndarray], axis: int, block: int | None = None) -> list[np.ndarray]:
    """Copy the first `block` positions of a right-aligned `axis` onto its last ones, in every input that spans it.

    `axis` counts from the right (-1: the last dim), as broadcasting aligns dims. The longest
    extent among the inputs decides; inputs shorter there broadcast and are left as they are.
    """
    spans = [v.shape[axis] for v in values if v.ndim >= -axis]
    size = max(spans, default=0)
    if size < 2:
        return values
    block = block or (tail_block(size) if axis == -1 else 1)
    out = []
    for v in values:
        if v.ndim >= -axis and v.shape[axis] == size:
            v = v.copy()
            src = [slice(None)] * v.ndim
            dst = [slice(None)] * v.ndim
            src[axis], dst[axis] = slice(0, block), slice(size - block, size)
            v[tuple(dst)] = v[tuple(src)]
        out.append(v)
    return out


def mirror_rows_and_tails(values: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """A sample whose last row repeats its first, or whose rows' tails repeat their heads, or both."""
    rank = max((v.ndim for v in values), default=0)
    if rank == 0:
        return values
    choice = int(rng.integers(3)) if rank > 1 else 1
    if choice in (0, 2):
        values = mirror(values, -rank)
    if choice in (1, 2):
        values = mirror(values, -1)
    return values
