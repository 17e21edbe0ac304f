"""A value over every sample read a slice at a time, so that the judge's memory stays bounded whatever a case's size.

The oracle (`judge.oracle`), the cancellation sweep (`judge.sweep`) and the rounding-error record
(`judge.rounding_error`) each take an output over every sample as one flat sequence. Held whole
in float64, with every temporary the errors need, that cost about 90 bytes an element (a 33M-element
case peaked at 3.6 GiB). They now take at most `CHUNK_ELEMENTS` elements at once and keep only
what the answer needs; every reduction they make over the slices (counts, maxima, the first
largest) gives what it gave over the whole, and a mean is still taken over the whole array.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np
import torch

# Elements taken at once (a multiple of every vector width, so that a float64 kernel's vector loop
# covers the same elements in a slice as in the whole). Read at call time: tests set it small.
CHUNK_ELEMENTS = 2**20


def chunk_elements() -> int:
    return CHUNK_ELEMENTS


def ranges(size: int) -> Iterator[tuple[int, int]]:
    """[start, stop) slices of at most `CHUNK_ELEMENTS` covering 0..size."""
    step = chunk_elements()
    for start in range(0, size, step):
        yield start, min(start + step, size)


class Flat:
    """Tensors or arrays (one per sample) as one flat float64 sequence, read by slices; nothing is concatenated."""

    def __init__(self, parts: Sequence[torch.Tensor | np.ndarray] | torch.Tensor | np.ndarray):
        self.parts = [parts] if isinstance(parts, (torch.Tensor, np.ndarray)) else list(parts)
        sizes = [int(p.numel()) if isinstance(p, torch.Tensor) else int(p.size) for p in self.parts]
        self.starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        self.size = int(self.starts[-1])
        self._flat: tuple[int, torch.Tensor | np.ndarray] | None = None  # the part last read, flattened once

    def _part(self, i: int) -> torch.Tensor | np.ndarray:
        if self._flat is None or self._flat[0] != i:
            part = self.parts[i]
            self._flat = (i, part.detach().reshape(-1) if isinstance(part, torch.Tensor) else np.asarray(part).reshape(-1))
        return self._flat[1]

    def slice(self, start: int, stop: int) -> np.ndarray:
        """Elements start..stop (over every part) in float64."""
        pieces = []
        first = max(int(np.searchsorted(self.starts, start, side="right")) - 1, 0)
        for i in range(first, len(self.parts)):
            lo, hi = int(self.starts[i]), int(self.starts[i + 1])
            if lo >= stop:
                break
            a, b = max(start, lo) - lo, min(stop, hi) - lo
            if b <= a:
                continue
            piece = self._part(i)[a:b]
            pieces.append(piece.to("cpu", torch.float64).numpy() if isinstance(piece, torch.Tensor) else piece.astype(np.float64, copy=False))
        if len(pieces) == 1:
            return pieces[0]
        return np.concatenate(pieces) if pieces else np.zeros(0)

    def whole(self) -> np.ndarray:
        return self.slice(0, self.size)


def as_flat(values: Flat | Sequence[torch.Tensor | np.ndarray] | torch.Tensor | np.ndarray) -> Flat:
    return values if isinstance(values, Flat) else Flat(values)
