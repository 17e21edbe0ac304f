"""Is a non-finite reduction only the order of its terms? Sums and products have none specified.

`prod([0, 2**64, 2**64, 2**64])` in bf16 is 0 exactly, and eager, multiplying from the front,
gives 0; a compiled kernel that multiplies two of the large terms first overflows fp32 and
returns 0 * inf = NaN. Neither order is wrong: ATen, Inductor and the hardware all reassociate
reductions, and eager gives the same NaN for the same terms in another order. So a non-finite
value at a `sum`, `mean` or `prod` culprit where eager, fed the culprit's inputs reordered along
the reduced dim (reversed, and rotated by 1 to 3), is non-finite too at every element the
target made non-finite, is within rounding. Eager runs the op alone; no compile.
"""

from __future__ import annotations

import torch

from numfuzz.judge.evidence import Evidence
from numfuzz.program.ir import Graph
from numfuzz.program.lowering import compile_source, lower

ORDER_FREE = ("sum", "mean", "prod")
ROTATIONS = (1, 2, 3)


def reorder_evidence(ev: Evidence) -> str | None:
    """Evidence that eager, given the culprit reduction's terms in other orders, makes the same non-finite elements; None otherwise."""
    c = ev.culprit
    if c is None or c.op not in ORDER_FREE or ev.suffix is not None:
        return None
    dim = ev.graph.nodes[c.node].attr("dim")
    if not isinstance(dim, int):
        return None
    eager_fn, out = compile_source(lower(ev.alone())), ev.alone_output()
    (inputs, values), (_, eager_values) = ev.side("target"), ev.side("eager")
    made = 0
    with torch.no_grad():
        for args, got, eager in zip(inputs, values, eager_values):
            new = ~torch.isfinite(got) & torch.isfinite(eager)
            if not bool(new.any()):
                continue
            explained = torch.zeros_like(new)
            for order in [lambda t: t.flip(dim)] + [lambda t, k=k: t.roll(k, dim) for k in ROTATIONS]:
                explained |= ~torch.isfinite(eager_fn(*[order(a) for a in args])[out])
            if bool((new & ~explained).any()):
                return None
            made += int(new.sum())
    if not made:
        return None
    return (
        f"eager's `{c.op}` of the same terms in another order (reversed or rotated along dim {dim}) is non-finite "
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
    if node.op not in ORDER_FREE or not isinstance(dim, int):
        return None
    fn = compile_source(lower(graph))
    orders = [(lambda t: t.flip(dim), lambda t: t.flip(dim))] + [(lambda t, k=k: t.roll(k, dim), lambda t, k=k: t.roll(-k, dim)) for k in ROTATIONS]
    made = 0
    for (x, *rest), (g,), got in zip(rows, upstream, target_grads):
        eager = _gradient(fn, x, rest, g, lambda t: t, lambda t: t)
        new = ~torch.isfinite(got.cpu()) & torch.isfinite(eager)
        if not bool(new.any()):
            continue
        explained = torch.zeros_like(new)
        for forward, back in orders:
            explained |= ~torch.isfinite(_gradient(fn, x, rest, g, forward, back))
        if bool((new & ~explained).any()):
            return None
        made += int(new.sum())
    if not made:
        return None
    return (
        f"eager's gradient of `{node.op}` of the same terms in another order (reversed or rotated along dim {dim}) is non-finite "
        f"at all {made} input-gradient elements the target made non-finite: the reduction's order is unspecified, and this one overflows"
    )


def _gradient(fn, x: torch.Tensor, rest: list[torch.Tensor], g: torch.Tensor, forward, back) -> torch.Tensor:
    """Eager's gradient of the reduction's first input, computed on its terms reordered by `forward`, put back in place by `back`."""
    with torch.enable_grad():
        leaf = forward(x.detach().cpu()).requires_grad_(True)
        (grad,) = torch.autograd.grad(fn(leaf, *[r.cpu() for r in rest])[0], [leaf], g.cpu())
    return back(grad.detach())
