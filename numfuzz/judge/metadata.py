"""The metadata oracle: whether each compiled output is laid out in memory as eager's is.

torch.compile keeps eager's output metadata, and later code relies on it: an in-place write to an
output that should alias an input, a `.view(-1)` that needs eager's strides. Checked on the first
sample, per output (an input's gradient is not an output and is not checked):

* aliasing -- an output shares an input's memory in the compiled program exactly where it does in
  eager, and two outputs share memory exactly where eager's do. AOTAutograd replays an output that
  aliases an input (or another output) as that view, so the compiled program returns views where
  eager does and fresh tensors where eager does. Not checked with gradients: each side's inputs are
  its own copies there.
* strides -- Inductor requires an output's exact eager strides (`keep_output_stride`, default on,
  and `pad_outputs`, default off: `GraphLowering.output` calls `require_exact_strides` with the
  strides eager's meta function gives). That holds for dense outputs; a view of an intermediate is
  kept in its stride order only, so a non-dense output (expanded, stepped) is compared only by what
  follows. A dim of size 1 may have any stride (torch ignores it for contiguity and views; Inductor
  does not keep it, pytorch#197815, which no later view or in-place write can tell), and an output of
  one element or none has no layout to keep.
* viewability -- where eager's output is contiguous, or `view(-1)` takes it, the compiled one must
  be and take it too (the reverse is no loss).

A target says whether it promises eager's strides (`keeps_output_strides`); one that does not
(Thunder, Inductor with `keep_output_stride` off) is checked for aliasing only.
"""

from __future__ import annotations

from typing import Sequence

import torch


def keeps_output_strides(target: object) -> bool:
    """Whether `target` promises eager's output strides: it says so itself (`keeps_output_strides`), else it does not."""
    promise = getattr(target, "keeps_output_strides", None)
    return bool(promise()) if callable(promise) else False


def metadata_differences(
    names: list[str], eager: Sequence[torch.Tensor], got: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor] | None, strides: bool
) -> list[str]:
    """What differs in the outputs' metadata, one phrase each: `output 0 (exp): strides (1, 4) where eager gives (4, 1)`.

    `names`: each output's name (the op that makes it); `inputs`: the tensors both sides were called with (None: not the same tensors, so input aliasing is not checked);
    `strides`: whether the target promises eager's strides and contiguity."""
    parts, sources = [], {}
    for k, (e, g) in enumerate(zip(eager[: len(names)], got[: len(names)])):
        if not _has_memory(e) or not _has_memory(g):
            continue
        if inputs is not None:
            sources[k] = (_source(e, inputs), _source(g, inputs))
            if sources[k][0] != sources[k][1]:
                parts.append(f"output {k} ({names[k]}): {_alias_text(sources[k][1])} where eager gives {_alias_text(sources[k][0])}")
                continue
        layout = _layout_difference(e, g) if strides else ""
        if layout:
            parts.append(f"output {k} ({names[k]}): {layout}")
    return parts + _shared_differences(eager[: len(names)], got[: len(names)], names, sources)


def _layout_difference(e: torch.Tensor, g: torch.Tensor) -> str:
    """How g's strides, contiguity or viewability differ from eager's e, where Inductor keeps them ("" where not)."""
    if e.numel() > 1 and _dense(e) and _sized_strides(e) != _sized_strides(g):
        lost = _views_flat(e) and not _views_flat(g)
        return f"strides {tuple(g.stride())} where eager gives {tuple(e.stride())}" + (", so a flat view fails" if lost else "")
    if e.is_contiguous() and not g.is_contiguous():
        return "not contiguous where eager's is"
    if _views_flat(e) and not _views_flat(g):
        return "a flat view fails where eager's works"
    return ""


def _shared_differences(eager: Sequence[torch.Tensor], got: Sequence[torch.Tensor], names: list[str], sources: dict) -> list[str]:
    """Pairs of outputs that share memory on one side only; a pair whose input aliasing already differs is said there."""
    parts = []
    kept = [k for k in range(min(len(eager), len(got))) if _has_memory(eager[k]) and _has_memory(got[k])]
    for a in kept:
        for b in (b for b in kept if b > a):
            if any(side[0] != side[1] for side in (sources.get(a, (None, None)), sources.get(b, (None, None)))):
                continue
            in_eager, in_got = _same_memory(eager[a], eager[b]), _same_memory(got[a], got[b])
            if in_eager != in_got:
                said = "share memory where eager's do not" if in_got else "do not share memory where eager's do"
                parts.append(f"outputs {a} and {b} ({names[a]}, {names[b]}): {said}")
    return parts


def _dense(t: torch.Tensor) -> bool:
    """Non-overlapping and dense: the dims of size above 1, in stride order, tile memory with no gap and no overlap
    (torch's own test has moved between versions)."""
    expected = 1
    for size, stride in sorted(((n, s) for n, s in zip(t.shape, t.stride()) if n > 1), key=lambda d: d[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _sized_strides(t: torch.Tensor) -> tuple[int, ...]:
    """The strides of the dims of size above 1: the ones a layout is made of."""
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


def _views_flat(t: torch.Tensor) -> bool:
    try:
        t.view(-1)
    except RuntimeError:
        return False
    return True


def _has_memory(t: object) -> bool:
    return isinstance(t, torch.Tensor) and t.numel() > 0 and t.untyped_storage().data_ptr() != 0


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _source(t: torch.Tensor, inputs: Sequence[torch.Tensor]) -> int | None:
    """The input whose memory `t` shares, or None for memory of its own."""
    return next((i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and _has_memory(x) and _same_memory(t, x)), None)


def _alias_text(source: int | None) -> str:
    return "a new tensor" if source is None else f"a view of input x{source}"
