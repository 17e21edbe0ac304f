"""Is a non-finite reduction only the order of its terms? Sums and products have none specified.

`prod([0, 2**64, 2**64, 2**64])` in bf16 is 0 exactly, and eager, multiplying from the front,
gives 0; a compiled kernel that multiplies two of the large terms first overflows fp32 and
returns 0 * inf = NaN. Neither order is wrong: ATen, Inductor and the hardware all reassociate
reductions, and eager gives the same NaN for the same terms in another order. So a non-finite
value at a `sum`, `mean` or `prod` culprit where eager, fed the culprit's inputs reordered along
the reduced dim (reversed, and rotated by 1 to 3), is non-finite too at every element the
target made non-finite, is within rounding. So is one where eager, reducing contiguous chunks of
the dim apart and combining their results (2 or 4 chunks, as threads split a reduction), is.
Eager runs the op alone; no compile.
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch

from numfuzz.judge.evidence import Evidence
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import lookup

ROTATIONS = (1, 2, 3)
CHUNKS = (2, 4)  # a reduction split over threads: each reduces a contiguous part, then the parts are combined
COMBINE = {"add": torch.sum, "multiply": torch.prod}


def reorder_evidence(ev: Evidence) -> str | None:
    """Evidence that eager, given the culprit reduction's terms in other orders, makes the same non-finite elements; None otherwise."""
    c = ev.culprit
    if c is None or not lookup(c.op).combines or ev.suffix is not None:
        return None
    dim = ev.graph.nodes[c.node].attr("dim")
    if not isinstance(dim, int):
        return None
    eager_fn, out = compile_source(lower(ev.alone())), ev.alone_output()
    (inputs, values), (_, eager_values) = ev.side("target"), ev.side("eager")

    node = ev.graph.nodes[c.node]
    spec = lookup(c.op)
    split = COMBINE.get(spec.combines) if not spec.divides_by_count else None  # a mean's parts would need weighing

    def others(args: list[torch.Tensor]) -> Callable[[], list[torch.Tensor]]:
        def run() -> list[torch.Tensor]:
            if not args[0].dim():  # a 0-d value's one term: no other order
                return []
            values = [eager_fn(*[forward(a) for a in args])[out] for forward, _ in _orders(dim)]
            if split is not None and len(args) == 1:
                values += [_in_chunks(eager_fn, out, args[0], dim, parts, split, node.attr("keepdim")) for parts in CHUNKS]
            return values

        return run

    with torch.no_grad():
        made = _made_in_other_orders((got, eager, others(args)) for args, got, eager in zip(inputs, values, eager_values))
    if made is None:
        return None
    return (
        f"eager's `{c.op}` of the same terms in another order (reversed, rotated or in chunks along dim {dim}) is non-finite "
        f"at all {made} elements the target made non-finite: the reduction's order is unspecified, and this one overflows"
    )


def reordered_gradient_evidence(
    graph: Graph, rows: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]], target_grads: list[torch.Tensor]
) -> str | None:
    """The same for a gradient: eager's backward of the culprit reduction alone (`graph`, on eager's forward values `rows`
    and its upstream gradient), given the reduced terms in other orders, makes the target's non-finite input gradient
    elements (`target_grads`, per sample) non-finite too. None otherwise."""
    (node,) = graph.nodes
    dim = node.attr("dim")
    if not lookup(node.op).combines or not isinstance(dim, int):
        return None
    fn = compile_source(lower(graph))

    def others(x: torch.Tensor, rest: list[torch.Tensor], g: torch.Tensor) -> Callable[[], list[torch.Tensor]]:
        return lambda: [_gradient(fn, x, rest, g, forward, back) for forward, back in _orders(dim)] if x.dim() else []  # 0-d: one term

    same = (lambda t: t, lambda t: t)
    made = _made_in_other_orders(
        (got.cpu(), _gradient(fn, x, rest, g, *same), others(x, rest, g)) for (x, *rest), (g,), got in zip(rows, upstream, target_grads)
    )
    if made is None:
        return None
    return (
        f"eager's gradient of `{node.op}` of the same terms in another order (reversed or rotated along dim {dim}) is non-finite "
        f"at all {made} input-gradient elements the target made non-finite: the reduction's order is unspecified, and this one overflows"
    )


Reorder = Callable[[torch.Tensor], torch.Tensor]


def _orders(dim: int) -> list[tuple[Reorder, Reorder]]:
    """The other orders tried, each with its inverse: reversed, and rotated by ROTATIONS."""
    return [(lambda t: t.flip(dim), lambda t: t.flip(dim))] + [(lambda t, k=k: t.roll(k, dim), lambda t, k=k: t.roll(-k, dim)) for k in ROTATIONS]


def _in_chunks(fn: Callable, out: int, x: torch.Tensor, dim: int, parts: int, combine: Callable, keepdim: object) -> torch.Tensor:
    """The reduction of `x` along `dim` as `parts` contiguous chunks reduced apart, their results then combined."""
    pieces = [fn(chunk)[out] for chunk in x.tensor_split(parts, dim) if chunk.shape[dim]]
    at = dim % x.dim() if keepdim else 0
    return combine(torch.stack(pieces, at) if not keepdim else torch.cat(pieces, at), at, keepdim=bool(keepdim))


def _made_in_other_orders(rows: Iterable[tuple[torch.Tensor, torch.Tensor, Callable[[], list[torch.Tensor]]]]) -> int | None:
    """Per sample (the target's value, eager's, eager's in the other orders): how many elements the target made
    non-finite, where eager in some other order is non-finite at every one of them; None where one is not, or none was made."""
    made = 0
    for got, eager, others in rows:
        new = ~torch.isfinite(got) & torch.isfinite(eager)
        if not bool(new.any()):
            continue
        explained = torch.zeros_like(new)
        for value in others():
            explained |= ~torch.isfinite(value)
        if bool((new & ~explained).any()):
            return None
        made += int(new.sum())
    return made or None


def _gradient(fn, x: torch.Tensor, rest: list[torch.Tensor], g: torch.Tensor, forward: Reorder, back: Reorder) -> torch.Tensor:
    """Eager's gradient of the reduction's first input, computed on its terms reordered by `forward`, put back in place by `back`."""
    with torch.enable_grad():
        leaf = forward(x.detach().cpu()).requires_grad_(True)
        (grad,) = torch.autograd.grad(fn(leaf, *[r.cpu() for r in rest])[0], [leaf], g.cpu())
    return back(grad.detach())
