"""How an input is laid out in memory: a recipe, stored with the input's spec, that rebuilds the same view exactly.

A case stores an input's logical values (row-major, as every input) and, when it is not plain, its
layout: the order of its dims in memory, a step along each dim, the dims it is expanded along with
stride 0, and a storage offset. `LAYOUT_SOURCE` builds the view from the values; the same text runs
in numfuzz and in repro scripts. Storage that the view skips (the gaps a step leaves, the offset)
holds NaN, so a kernel that reads it shows. Along an expanded dim every value is the same (one
copy is in memory): the values are checked for that when a case loads, and `conform` makes drawn
values so. `draw_layout` draws one for the generator and the mutator. Torch is imported only where a view is built.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

MAX_STEP = 4
MAX_OFFSET = 64


class LayoutError(ValueError):
    """A layout that does not fit its input (one line for the user)."""


@dataclass(frozen=True)
class Layout:
    """A strided view of an input. Every field at its default is the plain (contiguous) layout.

    perm: the dims in memory order, outermost first (the view is a permutation of a contiguous one);
    step: per dim, every step-th element of memory is used; expand: dims with stride 0;
    offset: elements of memory before the first.
    """

    perm: tuple[int, ...] = ()
    step: tuple[int, ...] = ()
    expand: tuple[int, ...] = ()
    offset: int = 0

    @staticmethod
    def make(rank: int, perm: Any = None, step: Any = None, expand: Any = (), offset: Any = 0) -> Layout:
        """A checked, normalised layout for an input of `rank` dims; LayoutError when it does not fit."""
        perm = tuple(range(rank)) if perm is None else _ints(perm, "perm")
        step = (1,) * rank if step is None else _ints(step, "step")
        expand = _ints(expand, "expand")
        if sorted(perm) != list(range(rank)):
            raise LayoutError(f"layout perm {list(perm)} is not a permutation of {rank} dims")
        if len(step) != rank or any(not 1 <= s <= MAX_STEP for s in step):
            raise LayoutError(f"layout step {list(step)} needs {rank} steps, each 1..{MAX_STEP}")
        if len(set(expand)) != len(expand) or any(not 0 <= d < rank for d in expand):
            raise LayoutError(f"layout expand {list(expand)} names dims outside 0..{rank - 1} or twice")
        if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
            raise LayoutError(f"layout offset {offset!r} is not an integer in 0..{MAX_OFFSET}")
        return Layout(
            () if perm == tuple(range(rank)) else perm,
            () if all(s == 1 for s in step) else step,
            tuple(sorted(expand)),
            offset,
        )

    @property
    def plain(self) -> bool:
        return self == Layout()

    def full(self, rank: int) -> tuple[list[int], list[int], list[int], int]:
        """(perm, step, expand, offset) with every default spelled out, as `laid_out` takes them."""
        return list(self.perm or range(rank)), list(self.step or (1,) * rank), list(self.expand), self.offset

    def kinds(self) -> list[str]:
        """What is not plain about it, in words: permuted, stepped, expanded, offset."""
        names = [("permuted", self.perm), ("stepped", self.step), ("expanded", self.expand), ("offset", self.offset)]
        return [name for name, value in names if value]

    def to_json(self) -> dict:
        data: dict[str, Any] = {}
        if self.perm:
            data["perm"] = list(self.perm)
        if self.step:
            data["step"] = list(self.step)
        if self.expand:
            data["expand"] = list(self.expand)
        if self.offset:
            data["offset"] = self.offset
        return data

    @staticmethod
    def from_json(data: Any, rank: int) -> Layout:
        if not isinstance(data, dict):
            raise LayoutError(f"layout is not an object: {data!r}")
        unknown = set(data) - {"perm", "step", "expand", "offset"}
        if unknown:
            raise LayoutError(f"layout has unknown fields {sorted(unknown)}")
        return Layout.make(rank, data.get("perm"), data.get("step"), data.get("expand", ()), data.get("offset", 0))

    def without_dims(self, dims: set[int], rank: int) -> Layout:
        """The layout after dims of size 1 are dropped from a `rank`-dim input (their place in memory goes with them)."""
        perm, step, expand, offset = self.full(rank)
        kept = [d for d in range(rank) if d not in dims]
        renumber = {d: i for i, d in enumerate(kept)}
        return Layout.make(
            len(kept), [renumber[d] for d in perm if d in renumber], [step[d] for d in kept], [renumber[d] for d in expand if d in renumber], offset
        )

    def with_leading_dim(self, rank: int) -> Layout:
        """The layout of `rank`-dim inputs stacked along a new outermost dim (which is plain)."""
        perm, step, expand, offset = self.full(rank)
        return Layout.make(rank + 1, [0] + [d + 1 for d in perm], [1] + step, [d + 1 for d in expand], offset)


def _ints(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
        raise LayoutError(f"layout {name} is not a list of integers: {value!r}")
    return tuple(value)


def first_slice(rank: int, expand: tuple[int, ...]) -> tuple[slice, ...]:
    """The index of the values memory holds: the first along every expanded dim."""
    return tuple(slice(0, 1) if d in expand else slice(None) for d in range(rank))


def conform(values: np.ndarray, layout: Layout | None) -> np.ndarray:
    """Values an expanded layout can hold: the first slice along each expanded dim, repeated along it."""
    if layout is None or not layout.expand:
        return values
    return np.broadcast_to(values[first_slice(values.ndim, layout.expand)], values.shape).copy()


LAYOUT_SOURCE = '''\
def laid_out(x, perm, step, expand, offset):
    """x's values in a view with this layout: dims in memory order `perm` (outermost first), every
    step-th element of memory along each dim, stride 0 along `expand` (x's first slice there),
    `offset` elements of memory before the first. Memory the view skips holds NaN."""
    shape, strides, extent = list(x.shape), [0] * x.dim(), 1
    for d in reversed(perm):
        if d not in expand:
            strides[d] = extent * step[d]
            extent *= shape[d] * step[d]
    memory = torch.full((offset + extent,), float("nan"), dtype=x.dtype, device=x.device)
    first = x[tuple(slice(0, 1) if d in expand else slice(None) for d in range(x.dim()))]
    torch.as_strided(memory, first.shape, strides, offset).copy_(first)
    return torch.as_strided(memory, shape, strides, offset)
'''

_builder: list[Callable] = []


def apply_layout(x: Any, layout: Layout | None) -> Any:
    """`x` (a torch tensor of the input's logical values) as the view its layout describes; itself when plain."""
    if layout is None or layout.plain:
        return x
    if not _builder:
        import torch

        namespace: dict[str, Any] = {"torch": torch}
        exec(compile(LAYOUT_SOURCE, "<numfuzz-layout>", "exec"), namespace)
        _builder.append(namespace["laid_out"])
    return _builder[0](x, *layout.full(x.dim()))


def draw_layout(rng: random.Random, shape: tuple[int, ...]) -> Layout:
    """A layout for an input of `shape` that a kernel must handle: permuted, stepped (maybe offset), expanded, or for one element offset.

    It takes the same draws whichever kind it picks (a count set by the shape alone), so that a
    Hypothesis shrink that moves draws about does not shift the input values drawn after it.
    """
    wide = [d for d, n in enumerate(shape) if n > 1]
    kinds = (["stepped", "expanded"] if wide else ["offset"]) + (["permuted"] if len(wide) >= 2 else [])
    kind = rng.choice(kinds)
    rank = len(shape)
    perm = list(range(rank))
    rng.shuffle(perm)
    dim = rng.choice(wide) if wide else 0
    every, offset = rng.choice([2, 2, 3]), rng.choice([0, 0, 1])
    if kind == "offset":  # one element: only where it starts in memory can differ
        return Layout.make(rank, offset=1)
    if kind == "permuted":  # a memory order in which the dims of size > 1 are not in order
        if [d for d in perm if d in wide] == wide:  # in order after all: swap two of them (a transpose)
            a, b = perm.index(wide[0]), perm.index(wide[1])
            perm[a], perm[b] = perm[b], perm[a]
        return Layout.make(rank, perm=perm)
    if kind == "expanded":
        return Layout.make(rank, expand=[dim])
    step = [1] * rank
    step[dim] = every
    return Layout.make(rank, step=step, offset=offset)
