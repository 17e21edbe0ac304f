"""Captured calls that only view their argument, matched by code: indexing (`x[..., a:b]`, `x[:, None]`), the pieces of a
`split` or `chunk`, and `flatten`. Each is an op of the table that moves values (slice, unsqueeze, reshape), or, for
the split itself, nothing: its pieces are slices of its argument.
"""

from __future__ import annotations

import operator
from typing import Any

import torch

View = tuple[str, torch.fx.Node, dict[str, Any]]  # (op, the tensor it views, attributes)
_SPLITS = frozenset({"split", "chunk"})


def _value(node: Any) -> Any:
    return node.meta.get("example_value") if isinstance(node, torch.fx.Node) else None


def _split_dim(node: torch.fx.Node) -> int | None:
    """The dim a `split` or `chunk` call cuts, non-negative; None where the call is not one of them on a tensor."""
    name = node.target if node.op == "call_method" else getattr(node.target, "__name__", "")
    if node.op not in ("call_function", "call_method") or name not in _SPLITS or not node.args or not isinstance(_value(node.args[0]), torch.Tensor):
        return None
    dim = node.kwargs.get("dim", node.args[2] if len(node.args) > 2 else 0)
    rank = _value(node.args[0]).dim()
    return dim % rank if isinstance(dim, int) and -rank <= dim < rank else None


def is_split(node: torch.fx.Node) -> bool:
    """A `split` or `chunk` whose every user takes one piece (`pieces[1]`): it computes nothing the pieces do not."""
    return _split_dim(node) is not None and all(user.target is operator.getitem and isinstance(user.args[1], int) for user in node.users)


def split_piece(node: torch.fx.Node) -> View | None:
    """`pieces[i]` of a split or chunk: the slice of its argument along the split's dim."""
    split, index = node.args[0], node.args[1]
    dim, pieces = _split_dim(split), _value(split)
    if dim is None or not isinstance(index, int) or not isinstance(pieces, (tuple, list)) or not -len(pieces) <= index < len(pieces):
        return None
    sizes = [int(piece.shape[dim]) for piece in pieces]
    index %= len(sizes)
    start = sum(sizes[:index])
    if sizes[index] == 0:
        return None  # an empty piece: no slice holds it
    return "slice", split.args[0], {"dim": dim, "start": start, "stop": start + sizes[index], "step": 1}


def indexed(node: torch.fx.Node) -> View | None:
    """`x[..., a:b]` (one dim sliced with a positive step, the rest whole) or `x[:, :, None]` (one new dim, the rest whole)."""
    value, index = _value(node.args[0]), node.args[1]
    index = index if isinstance(index, tuple) else (index,)
    if not isinstance(value, torch.Tensor) or any(not isinstance(i, slice) and i is not Ellipsis and i is not None for i in index):
        return None
    if index.count(Ellipsis) > 1 or index.count(None) > 1 or len(index) - index.count(None) - index.count(Ellipsis) > value.dim():
        return None
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (value.dim() - len(index) + 1 + index.count(None)) + index[at + 1 :]
    cut = [(dim, s) for dim, s in enumerate(index) if s != slice(None)]
    if len(cut) != 1:
        return None
    dim, s = cut[0]
    if s is None:
        return "unsqueeze", node.args[0], {"dim": dim}
    if any(not isinstance(b, (int, type(None))) for b in (s.start, s.stop, s.step)):
        return None  # a bound computed in the graph
    start, stop, step = s.indices(int(value.shape[dim]))
    return ("slice", node.args[0], {"dim": dim, "start": start, "stop": stop, "step": step}) if step >= 1 and start < stop else None


def flattened(node: torch.fx.Node) -> View | None:
    """`x.flatten(...)`, `torch.flatten(x, ...)`: a reshape to the traced result's shape."""
    name = node.target if node.op == "call_method" else getattr(node.target, "__name__", "")
    if name != "flatten" or not node.args or not isinstance(_value(node.args[0]), torch.Tensor):
        return None
    return "reshape", node.args[0], {"shape": ()}  # the shape as it came out (`mapping._checked`)


def view_of(node: torch.fx.Node) -> View | None:
    """The view a captured call is, where it is one of this module's."""
    if node.target is operator.getitem and isinstance(node.args[0], torch.fx.Node):
        return split_piece(node) if _split_dim(node.args[0]) is not None else indexed(node)
    return flattened(node)
