"""The op table: one entry per op, as data. Arity, input domains, attributes and shape rules.

No torch here: how an op becomes torch code lives in `numfuzz.lowering`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from numfuzz.program.dtypes import PROGRAM_DTYPES, promote
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec

Infer = Callable[[list[TensorSpec], dict[str, Any]], TensorSpec]
DrawAttrs = Callable[[random.Random, list[TensorSpec]], dict[str, Any]]


@dataclass(frozen=True)
class OpSpec:
    name: str
    arity: int
    family: str  # how the generator finds its arguments: unary, elementwise, cat, linear, matmul
    infer: Infer
    domains: tuple[str, ...] = ()  # per argument: "any" or "positive"
    draw_attrs: DrawAttrs | None = None
    same_dtype: bool = False  # torch requires every tensor argument in one dtype
    weight: float = 1.0  # how often the generator picks it

    def domain(self, arg: int) -> str:
        return self.domains[arg] if arg < len(self.domains) else "any"


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(dims) > 1:
            raise GraphError(f"shapes {shapes} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def _norm_dim(dim: int, rank: int) -> int:
    if not -rank <= dim < rank:
        raise GraphError(f"dim {dim} out of range for rank {rank}")
    return dim % rank


def _elementwise(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(broadcast_shapes(*(s.shape for s in specs)), promote(*(s.dtype for s in specs)))


def _where(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = broadcast_shapes(*(s.shape for s in specs))
    return TensorSpec(shape, promote(specs[1].dtype, specs[2].dtype))


def _same(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return specs[0]


def _cast(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(specs[0].shape, attrs["dtype"])


def _reduce(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    if not shape:
        raise GraphError("cannot reduce a scalar along a dim")
    dim = _norm_dim(attrs["dim"], len(shape))
    if attrs.get("keepdim"):
        shape[dim] = 1
    else:
        del shape[dim]
    return TensorSpec(tuple(shape), specs[0].dtype)


def _along_dim(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    _norm_dim(attrs["dim"], len(specs[0].shape))
    return specs[0]


def _last_dim(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if not specs[0].shape:
        raise GraphError("norm needs at least one dim")
    return specs[0]


def _cat(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) != len(b) or not a:
        raise GraphError("cat needs tensors of one rank >= 1")
    dim = _norm_dim(attrs["dim"], len(a))
    if any(x != y for i, (x, y) in enumerate(zip(a, b)) if i != dim):
        raise GraphError(f"cat shapes {a} and {b} differ off dim {dim}")
    shape = list(a)
    shape[dim] = a[dim] + b[dim]
    return TensorSpec(tuple(shape), promote(specs[0].dtype, specs[1].dtype))


def _reshape(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = tuple(attrs["shape"])
    n = 1
    for d in shape:
        n *= d
    if n != specs[0].numel:
        raise GraphError(f"reshape {specs[0].shape} to {shape} changes numel")
    return TensorSpec(shape, specs[0].dtype)


def _permute(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    perm = tuple(attrs["perm"])
    if sorted(perm) != list(range(len(specs[0].shape))):
        raise GraphError(f"bad permutation {perm}")
    return TensorSpec(tuple(specs[0].shape[p] for p in perm), specs[0].dtype)


def _transpose(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    a, b = _norm_dim(attrs["dim0"], len(shape)), _norm_dim(attrs["dim1"], len(shape))
    shape[a], shape[b] = shape[b], shape[a]
    return TensorSpec(tuple(shape), specs[0].dtype)


def _unsqueeze(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = attrs["dim"]
    if not 0 <= dim <= len(shape):
        raise GraphError(f"unsqueeze dim {dim} out of range")
    shape.insert(dim, 1)
    return TensorSpec(tuple(shape), specs[0].dtype)


def _expand(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = tuple(attrs["shape"])
    if len(shape) != len(specs[0].shape) or any(s != t and s != 1 for s, t in zip(specs[0].shape, shape)):
        raise GraphError(f"cannot expand {specs[0].shape} to {shape}")
    return TensorSpec(shape, specs[0].dtype)


def _slice(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = attrs["dim"]
    if not 0 <= dim < len(shape):
        raise GraphError(f"slice dim {dim} must be in [0, {len(shape)})")
    start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
    if not (0 <= start < stop <= shape[dim] and step >= 1):
        raise GraphError(f"bad slice {start}:{stop}:{step} of size {shape[dim]}")
    shape[dim] = len(range(start, stop, step))
    return TensorSpec(tuple(shape), specs[0].dtype)


def _chunk(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = list(specs[0].shape)
    dim = _norm_dim(attrs["dim"], len(shape))
    size = -(-shape[dim] // attrs["chunks"])
    pieces = [min(size, shape[dim] - s) for s in range(0, shape[dim], size)]
    if not 0 <= attrs["index"] < len(pieces):
        raise GraphError(f"chunk index {attrs['index']} of {len(pieces)}")
    shape[dim] = pieces[attrs["index"]]
    return TensorSpec(tuple(shape), specs[0].dtype)


def _linear(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, w = specs[0].shape, specs[1].shape
    if not x or len(w) != 2 or w[1] != x[-1]:
        raise GraphError(f"linear shapes {x} and {w} disagree")
    if len(specs) == 3 and specs[2].shape != (w[0],):
        raise GraphError("linear bias must have shape (out_features,)")
    return TensorSpec(x[:-1] + (w[0],), specs[0].dtype)


def _matmul(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) < 1 or len(b) != 2 or a[-1] != b[0]:
        raise GraphError(f"matmul shapes {a} and {b} disagree")
    return TensorSpec(a[:-1] + (b[1],), specs[0].dtype)


# --- attribute drawers ---------------------------------------------------------------


def _draw_dim(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"dim": rng.randrange(len(specs[0].shape)) - (len(specs[0].shape) if rng.random() < 0.5 else 0)}


def _draw_reduce(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**_draw_dim(rng, specs), "keepdim": rng.random() < 0.5}


def _draw_var(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**_draw_reduce(rng, specs), "correction": rng.choice([0, 1])}


def _draw_cast(rng: random.Random, specs: list[TensorSpec]) -> dict:
    others = [d for d in PROGRAM_DTYPES if d != specs[0].dtype]
    return {"dtype": rng.choice(others)}


def _draw_eps(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"eps": rng.choice([1e-5, 1e-6])}


def _draw_gelu(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"approximate": rng.choice(["none", "tanh"])}


def _draw_exponent(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"exponent": rng.choice([0.5, 1.7, 2.0, 3.0, -1.0, -0.5, 2.5])}


def _draw_scalar(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"value": rng.choice([0.5, 2.0, -1.0, 1.0, 0.1, 3.0, 1e-3, 100.0])}


ELEMENTWISE_UNARY = [
    "neg", "abs", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "relu", "softplus", "erf",
]  # fmt: skip
POSITIVE_UNARY = ["log", "log1p", "sqrt", "rsqrt", "reciprocal"]

OPS: dict[str, OpSpec] = {}


def _add(spec: OpSpec) -> None:
    OPS[spec.name] = spec


for _name in ELEMENTWISE_UNARY:
    _add(OpSpec(_name, 1, "unary", _same))
for _name in POSITIVE_UNARY:
    _add(OpSpec(_name, 1, "unary", _same, domains=("positive",)))
_add(OpSpec("gelu", 1, "unary", _same, draw_attrs=_draw_gelu))
_add(OpSpec("pow_scalar", 1, "unary", _same, domains=("positive",), draw_attrs=_draw_exponent))
_add(OpSpec("mul_scalar", 1, "unary", _same, draw_attrs=_draw_scalar, weight=0.5))
_add(OpSpec("add_scalar", 1, "unary", _same, draw_attrs=_draw_scalar, weight=0.5))
for _name in ["add", "sub", "mul", "div", "maximum", "minimum"]:
    _add(OpSpec(_name, 2, "elementwise", _elementwise, weight=1.5))
_add(OpSpec("pow", 2, "elementwise", _elementwise, domains=("positive", "any")))
_add(OpSpec("where", 3, "elementwise", _where))
_add(OpSpec("lerp", 3, "elementwise", _elementwise, same_dtype=True))
_add(OpSpec("addcmul", 3, "elementwise", _elementwise, same_dtype=True, draw_attrs=_draw_scalar))
_add(OpSpec("cast", 1, "unary", _cast, draw_attrs=_draw_cast, weight=2.0))
_add(OpSpec("cat", 2, "cat", _cat, draw_attrs=_draw_dim))
_add(OpSpec("reshape", 1, "reshape", _reshape, weight=0.5))
_add(OpSpec("permute", 1, "permute", _permute, weight=0.5))
_add(OpSpec("transpose", 1, "transpose", _transpose, weight=0.5))
_add(OpSpec("unsqueeze", 1, "unsqueeze", _unsqueeze, weight=0.3))
_add(OpSpec("expand", 1, "expand", _expand, weight=0.3))
_add(OpSpec("slice", 1, "slice", _slice, weight=0.5))
_add(OpSpec("chunk", 1, "chunk", _chunk, weight=0.5))
for _name, _draw in [("sum", _draw_reduce), ("mean", _draw_reduce), ("amax", _draw_reduce), ("var", _draw_var)]:
    _add(OpSpec(_name, 1, "reduce", _reduce, draw_attrs=_draw))
for _name in ["softmax", "log_softmax"]:
    _add(OpSpec(_name, 1, "reduce", _along_dim, draw_attrs=_draw_dim))
for _name in ["layer_norm", "rms_norm"]:
    _add(OpSpec(_name, 1, "norm", _last_dim, draw_attrs=_draw_eps))
_add(OpSpec("linear", 2, "linear", _linear, same_dtype=True))
_add(OpSpec("matmul", 2, "matmul", _matmul, same_dtype=True))


def lookup(name: str) -> OpSpec:
    try:
        return OPS[name]
    except KeyError:
        raise GraphError(f"unknown op {name!r}") from None


def infer_node(node: Node, specs: list[TensorSpec]) -> TensorSpec:
    op = lookup(node.op)
    if len(node.args) != op.arity and not (op.name == "linear" and len(node.args) == 3):
        raise GraphError(f"{node.op} takes {op.arity} arguments, got {len(node.args)}")
    args = [specs[a] for a in node.args]
    if op.same_dtype and len({s.dtype for s in args}) > 1:
        raise GraphError(f"{node.op} needs one dtype, got {[s.dtype for s in args]}")
    try:
        return op.infer(args, node.attr_dict)
    except KeyError as exc:
        raise GraphError(f"{node.op} is missing attribute {exc}") from None


def infer_specs(graph: Graph) -> list[TensorSpec]:
    """The spec of every value; raises GraphError when the graph is ill-typed."""
    specs = list(graph.inputs)
    for node in graph.nodes:
        specs.append(infer_node(node, specs))
    return specs
