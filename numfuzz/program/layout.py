"""How an input is laid out in memory: a recipe, stored with the input's spec, that rebuilds the same view exactly.

A case stores an input's logical values (row-major, as every input) and, when it is not plain, its
layout: the order of its dims in memory, a step along each dim, the dims it is expanded along with
stride 0, a gap of memory after each dim's run, and a storage offset. With gaps and an offset the
input is a view into a larger tensor, as `select`, indexing or `as_strided` of a bigger tensor makes
(`base[:, 2]` of a (4, 3, 5) base: rows 15 apart, 10 elements in). `LAYOUT_SOURCE` builds the view
from the values; the same text runs in numfuzz and in repro scripts. Storage that the view skips (the
gaps, the offset) holds NaN, so a kernel that reads it shows. Along an expanded dim every value is
the same (one copy is in memory): the values are checked for that when a case loads, and `conform`
makes drawn values so. `draw_layout` draws one for the generator and the mutator, `draw_view` a view
into a larger tensor. Torch is imported only where a view is built.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

MAX_STEP = 64  # a drawn step is 2 or 3, times the size of the dim a drawn select takes away (a column's stride)
VIEW_MEMORY = 2**22  # elements of memory a drawn view into a larger tensor may span (its base's size, at most)
MAX_SPAN = MAX_OFFSET = MAX_GAP = 16 * VIEW_MEMORY  # what a case file's layout may span and hold: past what is drawn
BASE_SIZES = (2, 3, 4, 8)  # the size of the dim a drawn select takes away


class LayoutError(ValueError):
    """A layout that does not fit its input (one line for the user)."""


@dataclass(frozen=True)
class Layout:
    """A strided view of an input. Every field at its default is the plain (contiguous) layout.

    perm: the dims in memory order, outermost first (the view is a permutation of a contiguous one);
    step: per dim, every step-th element of memory is used; expand: dims with stride 0;
    offset: elements of memory before the first; gap: per dim, elements of memory after each of its
    runs (the dims outside it in memory step over them: a padded row, the rows a select skips).
    """

    perm: tuple[int, ...] = ()
    step: tuple[int, ...] = ()
    expand: tuple[int, ...] = ()
    offset: int = 0
    gap: tuple[int, ...] = ()

    @staticmethod
    def make(rank: int, perm: Any = None, step: Any = None, expand: Any = (), offset: Any = 0, gap: Any = None) -> Layout:
        """A checked, normalised layout for an input of `rank` dims; LayoutError when it does not fit."""
        perm = tuple(range(rank)) if perm is None else _ints(perm, "perm")
        step = (1,) * rank if step is None else _ints(step, "step")
        expand = _ints(expand, "expand")
        gap = (0,) * rank if gap is None else _ints(gap, "gap")
        if sorted(perm) != list(range(rank)):
            raise LayoutError(f"layout perm {list(perm)} is not a permutation of {rank} dims")
        if len(step) != rank or any(not 1 <= s <= MAX_STEP for s in step):
            raise LayoutError(f"layout step {list(step)} needs {rank} steps, each 1..{MAX_STEP}")
        if len(set(expand)) != len(expand) or any(not 0 <= d < rank for d in expand):
            raise LayoutError(f"layout expand {list(expand)} names dims outside 0..{rank - 1} or twice")
        if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
            raise LayoutError(f"layout offset {offset!r} is not an integer in 0..{MAX_OFFSET}")
        if len(gap) != rank or any(not 0 <= g <= MAX_GAP for g in gap) or any(gap[d] for d in expand):
            raise LayoutError(f"layout gap {list(gap)} needs {rank} gaps, each 0..{MAX_GAP}, none along an expanded dim")
        return Layout(
            () if perm == tuple(range(rank)) else perm,
            () if all(s == 1 for s in step) else step,
            tuple(sorted(expand)),
            offset,
            gap if any(gap) else (),
        )

    @property
    def plain(self) -> bool:
        return self == Layout()

    def full(self, rank: int) -> tuple[list[int], list[int], list[int], int, list[int]]:
        """(perm, step, expand, offset, gap) with every default spelled out, as `laid_out` takes them."""
        return list(self.perm or range(rank)), list(self.step or (1,) * rank), list(self.expand), self.offset, list(self.gap or (0,) * rank)

    def span(self, shape: tuple[int, ...]) -> int:
        """The elements of memory it lays a value of `shape` in: its offset, then its runs with their steps and gaps."""
        perm, step, expand, offset, gap = self.full(len(shape))
        return offset + _extents(shape, step, gap, [d for d in reversed(perm) if d not in expand])[-1]

    def check_fits(self, shape: tuple[int, ...]) -> None:
        """Raises LayoutError unless it is a layout of a value of `shape` within MAX_SPAN elements of memory."""
        Layout.make(len(shape), *self.full(len(shape)))
        if self.span(shape) > MAX_SPAN:
            raise LayoutError(f"it spans {self.span(shape)} elements of memory, past {MAX_SPAN}")

    def kinds(self) -> list[str]:
        """What is not plain about it, in words: permuted, stepped, expanded, offset, gapped."""
        names = [("permuted", self.perm), ("stepped", self.step), ("expanded", self.expand), ("offset", self.offset), ("gapped", self.gap)]
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
        if self.gap:  # only where used, so that older cases keep their content hash
            data["gap"] = list(self.gap)
        return data

    @staticmethod
    def from_json(data: Any, rank: int) -> Layout:
        if not isinstance(data, dict):
            raise LayoutError(f"layout is not an object: {data!r}")
        unknown = set(data) - {"perm", "step", "expand", "offset", "gap"}
        if unknown:
            raise LayoutError(f"layout has unknown fields {sorted(unknown)}")
        return Layout.make(rank, data.get("perm"), data.get("step"), data.get("expand", ()), data.get("offset", 0), data.get("gap"))

    def without_dims(self, dims: set[int], rank: int) -> Layout:
        """The layout after dims of size 1 are dropped from a `rank`-dim input (their place in memory goes with them)."""
        perm, step, expand, offset, gap = self.full(rank)
        kept = [d for d in range(rank) if d not in dims]
        renumber = {d: i for i, d in enumerate(kept)}
        new_perm, new_expand = [renumber[d] for d in perm if d in renumber], [renumber[d] for d in expand if d in renumber]
        return Layout.make(len(kept), new_perm, [step[d] for d in kept], new_expand, offset, [gap[d] for d in kept])

    def with_leading_dim(self, rank: int) -> Layout:
        """The layout of `rank`-dim inputs stacked along a new outermost dim (which is plain)."""
        perm, step, expand, offset, gap = self.full(rank)
        return Layout.make(rank + 1, [0] + [d + 1 for d in perm], [1] + step, [d + 1 for d in expand], offset, [0] + gap)


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
def laid_out(x, perm, step, expand, offset, gap):
    """x's values in a view with this layout: dims in memory order `perm` (outermost first), every
    step-th element of memory along each dim, stride 0 along `expand` (x's first slice there),
    `gap` elements of memory after each run of a dim, `offset` elements of memory before the first
    (a view into a larger tensor, as select or as_strided makes). Memory the view skips holds NaN."""
    shape, strides, extent = list(x.shape), [0] * x.dim(), 1
    for d in reversed(perm):
        if d not in expand:
            strides[d] = extent * step[d]
            extent = extent * shape[d] * step[d] + gap[d]
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


def draw_view(rng: random.Random, shape: tuple[int, ...], layout: Layout | None = None) -> Layout:
    """`layout` (plain where None) made a view into a larger tensor, at an offset: the view `select` or indexing of a
    base with one more dim makes (`base[:, i]`: the rows step over the base's other columns), or rows padded as
    `as_strided` of a wider base lays them (strides that no dim's size divides). NaN fills what it skips.

    The base's extra dim (or the padding) sits beside a dim longer than 1, where it moves a stride that addresses
    something. It takes the same draws whichever kind it picks, as `draw_layout` does.
    """
    rank, before = len(shape), layout or Layout()
    perm, step, expand, offset, gap = before.full(rank)
    runs = [d for d in reversed(perm) if d not in expand]  # the dims laid in memory, innermost first
    wide = [p for p, d in enumerate(runs) if shape[d] > 1]
    kind = rng.choice(["select", "padded"])
    at = rng.randint(0, len(wide))  # the extra dim lies just outside the at-th wide run (0: inside the first)
    size, where, pad = rng.choice(BASE_SIZES), rng.random(), rng.random()
    extents = _extents(shape, step, gap, runs)  # extents[p]: the memory runs[:p] span
    if at == len(wide):  # a select of the outermost dim, base[i]: the view starts i of its size in
        offset += (1 + int(where * (size - 1))) * extents[-1]
    elif at == 0:  # a select inside the innermost wide run, base[..., i]: that run steps over the other size - 1
        step[runs[wide[0]]] *= size
        offset += int(where * size) * extents[wide[0]]
    elif kind == "padded":  # rows padded: the runs outside step over the padding
        block = extents[wide[at - 1] + 1]
        gap[runs[wide[at - 1]]] += 1 + int(pad * 2 * block)
        offset += int(where * block)
    else:  # a select between two wide runs: the outer ones step over the other size - 1 blocks
        block = extents[wide[at - 1] + 1]
        gap[runs[wide[at - 1]]] += (size - 1) * block
        offset += int(where * size) * block
    view = Layout.make(rank, perm, step, expand, offset, gap)
    if view.span(shape) > VIEW_MEMORY:  # past the memory a drawn view may span: the layout one element in
        return Layout.make(rank, perm, before.step or None, expand, before.offset + 1, before.gap or None)
    return view


def _extents(shape: tuple[int, ...], step: list[int], gap: list[int], runs: list[int]) -> list[int]:
    """The memory the first p runs span (with their steps and gaps), for p = 0 .. len(runs): as `laid_out` lays them."""
    extents = [1]
    for d in runs:
        extents.append(extents[-1] * shape[d] * step[d] + gap[d])
    return extents
