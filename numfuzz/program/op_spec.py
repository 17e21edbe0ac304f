"""What an op table entry is, and the shape rules and attribute drawers the table's modules share.

No torch here: how an op becomes torch code lives in `numfuzz.program.lowering`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Literal, get_args

from numfuzz.program.dtypes import FLOAT_DTYPES, FORMATS, promote
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.scalars import draw_value

Infer = Callable[[list[TensorSpec], dict[str, Any]], TensorSpec]
DrawAttrs = Callable[[random.Random, list[TensorSpec]], dict[str, Any]]
# The shapes of the new inputs an op of family "fresh" takes after its first argument.
Operands = Callable[[random.Random, TensorSpec, dict[str, Any]], list[tuple[int, ...]]]
# An index argument's values lie in [0, bound): the bound, from the op's first argument and attributes.
IndexBound = Callable[[TensorSpec, dict[str, Any]], int]
# How many terms one output element may sum, from the op's argument specs and attributes (bounds that grow with it).
Terms = Callable[[list[TensorSpec], dict[str, Any]], int]
# The values at which an op draws a line on its first argument (a clamp's bounds, a threshold), from its attributes.
Lines = Callable[[dict[str, Any]], list[float]]
INDEX_DTYPE = "i64"

# Input domains, each drawn by `values.draw_values` and guarded by the generator.
DOMAINS = {
    "any": "every value",
    "positive": "x > 0",
    "nonzero": "|x| >= 1e-3 (divisors)",
    "unit": "-1 < x < 1 (asin, atanh, erfinv)",
    "probability": "0 < x < 1 (logit, targets)",
    "above_one": "x > 1 (acosh)",
    "sign": "x in {-1, 1} (margin targets)",
    "index": "integers in [0, bound) (class targets, indices: i64 inputs)",
}


# What bounds an op's error (`OpSpec.bound`), as `numfuzz.judge.bounds` reads it: every op says which.
BOUND_KINDS = {
    "table": "its implementation's documented bound, an entry of numfuzz/data/error_bounds.toml",
    "correctly_rounded": "exact, or one IEEE rounding of the exact result (a selection, a comparison, a copy, x*s): 0.5 ULP",
    "undocumented": "no bound documented for its implementation: the table's stated default",
}


# A reduction's arithmetic (`OpSpec.combines`): "add" (sum, mean: an accumulator a narrow dtype could hold) or
# "multiply" (prod); either is order-free, so the judge reorders and splits it (`judge.reduction_order`)
Combines = Literal["", "add", "multiply"]
COMBINES = tuple(c for c in get_args(Combines) if c)
# The groups a block's mutation swaps ops within (`OpSpec.swap_group`, `program.blocks`): one shape rule, another computation
SwapGroup = Literal["", "activation", "root", "arithmetic", "reduction", "softmax", "norm"]
SWAP_GROUPS = tuple(g for g in get_args(SwapGroup) if g)


@dataclass(frozen=True)
class OpSpec:
    # --- what it is: its name, its count of arguments, its family and its shape rule (every reader) ---------------
    name: str
    arity: int  # its arguments, and up to `optional` more it may take (a linear's bias)
    # How the generator finds its arguments: the name of a family registered in `numfuzz.program.families` (unary,
    # elementwise, reduce, norm, window, fresh: the first argument is drawn, the others are new inputs shaped by
    # `operands`) or beside its ops in their table module (the shape families, linear, matmul); the table refuses
    # any other name at import
    family: str
    infer: Infer
    # --- its arguments: what the type check (`ops.infer_node`) accepts and the generator draws ---------------------
    optional: int = 0  # arguments it may take past `arity`
    domains: tuple[str, ...] = ()  # per argument, a key of DOMAINS; "any" past the end
    dtypes: tuple[str, ...] = FLOAT_DTYPES  # the argument dtypes it takes
    cpu_dtypes: tuple[str, ...] = ()  # where eager's CPU kernel takes fewer: those (the generator draws them on CPU)
    same_dtype: bool = False  # torch requires every tensor argument in one dtype
    # The argument that is an integer input (i64, domain "index"), drawn in [0, index_bound) and
    # kept there by the minimiser; every other argument is a float. A node's `ignore_index`
    # attribute, where it has one, is a valid value too.
    index_arg: int | None = None
    index_bound: IndexBound | None = None
    index_dtype: str = INDEX_DTYPE  # the integer dtype of that input: int64 indices, or int8 (an exponent)

    # --- how the generator draws it (`program.generator`, `program.seams`, `program.blocks`) -----------------------
    weight: float = 1.0  # how often the generator picks it, relative to the others
    draw_attrs: DrawAttrs | None = None
    operands: Operands | None = None
    # Attributes that may be passed as Python scalars at call time (`program.scalars`), each with what values
    # are legal: a key of `scalars.LEGAL`, or "bound" or "bound_nonneg" (within the first argument's dtype's
    # finite range: past it eager raises, pytorch#195675).
    scalars: tuple[tuple[str, str], ...] = ()
    lines: Lines | None = None  # where it compares its first argument against a scalar: inputs are placed there
    # Its roles in a seam graph (`numfuzz.program.seams`), as weights (0: none). `recomputed`: a pointwise op whose
    # vectorised and scalar code differ (SLEEF or a polynomial against libm), drawn as the input a fused reduction may
    # compute twice; pow and exp span the whole range, so 1 ULP between the two is huge. `consumer`: a reduction along
    # the last dim, drawn to take it (softmax and log_softmax subtract the max they reduced).
    recomputed: int = 0
    consumer: int = 0
    swap_group: SwapGroup = ""  # a block's mutation may put ops of one group in each other's place (one shape rule, another computation)

    # --- how it is lowered to torch code (`program.lowering`, `program.autocast`) ---------------------------------
    # Its call, a template over its argument names ({0}, {1}, ..., {args}) and attributes;
    # and, where torch's float64 kernel is not exact enough or an index must stay an integer, the float64 reference's
    # call (it may name a helper of `numfuzz.program.exact`). A slice is lowered by code, a cast rounds in the reference.
    call: str = ""
    reference: str = ""
    # autocast's policy for it on CPU (`numfuzz.program.autocast`): "lower" (its float arguments cast to the region's
    # dtype), "fp32" (cast to fp32), or "" (left alone); a test checks these against torch. `autocast_by_attrs`, where the
    # policy depends on a node's attributes (pad: reflect and replicate are on the fp32 list, constant and circular on
    # none): the policy for its attributes (`autocast_for`); `autocast` is then the op's policy where no node says more
    autocast: str = ""
    autocast_by_attrs: Callable[[dict[str, Any]], str] | None = None
    # Where its call is the node's own (a database op's form, `program.op_db`): the call's source from the node's attributes,
    # its arguments' names and whether it is the float64 reference's; `call` and `reference` are then not read
    lower: Callable[[dict[str, Any], list[str], bool], str] | None = None
    constant: bool = False  # makes a new tensor: its dtype attribute written as torch's, taken in float64 as eager makes it
    # The attribute naming the dtype the op computes in (`torch.sum(x, dtype=...)`): its first argument is cast to it
    # first, so the float64 reference rounds that argument there once, as it does at a cast, and computes on in float64
    computes_in: str = ""

    # --- what the judge and the bounds read (`judge.bounds`, `judge.rounding_error`, `judge.causes`, ...) ---------
    bound: str = ""  # a key of BOUND_KINDS: where its error bound comes from (the table refuses an op without one)
    # How many terms one output element sums (`judge.rounding_error.reduced_length`): the table's bound grows with it
    # as a reduction's does with its length. Where it is left out, the table fills in its family's (`Family.terms`: one
    # for a pointwise op, the reduced dim, the last dim); an op of a family without one (fresh, window) states its own.
    # An op that adds at indices, any of which may repeat (index_add), counts the most one element takes
    terms: Terms | None = None
    # a reduction's arithmetic (COMBINES): eager given its terms in another order says what any order makes
    combines: Combines = ""
    # A mean: its sum divided by the count it reduced (the judge's sequential sum divides too; its parts, split, would need weighing)
    divides_by_count: bool = False
    # softmax's form: exp(x - max(x)) along `dim`, one output per input element; where a fused kernel's max is below an
    # element of its row, x - max(x) > 0 and exp overflows (the judge counts such rows)
    subtracts_row_max: bool = False
    # A reduction whose fused code reads its input in two loops (its statistics, then its elements), computing it in each:
    # where the two disagree, x - max(x) > 0 or x - mean(x) != 0 (the mechanism "reduction-recompute" of the judge).
    recomputes_input: bool = False

    # --- how a captured model's graph writes it (`model.mapping`, with `call`) ------------------------------------
    # Other forms of its call (`x.view(...)` for reshape, `-x` for neg): what the mapping recognises as this op
    captured: tuple[str, ...] = ()
    # A database op calling a public function (`torch.std`, `F.layer_norm`, `Tensor.add_`): that function's name, which
    # is the hand-written op's where the table has one. A known issue naming the hand-written op claims this one too
    counterpart: str = ""

    def __post_init__(self) -> None:
        for name, allowed in (("combines", COMBINES), ("swap_group", SWAP_GROUPS)):
            if getattr(self, name) not in ("", *allowed):
                raise ValueError(f"op {self.name!r}: {name} {getattr(self, name)!r} is none of {', '.join(allowed)}")

    def domain(self, arg: int) -> str:
        return self.domains[arg] if arg < len(self.domains) else "any"

    def autocast_for(self, attrs: dict[str, Any]) -> str:
        """The autocast policy of a node of this op with these attributes."""
        return self.autocast_by_attrs(attrs) if self.autocast_by_attrs is not None else self.autocast


# --- terms per output element (`OpSpec.terms`) -------------------------------------------


def one_term(specs: list[TensorSpec], attrs: dict[str, Any]) -> int:
    """A pointwise op, a copy or a selection (a max): each output element is one input element's."""
    return 1


def terms_along_dim(specs: list[TensorSpec], attrs: dict[str, Any]) -> int:
    """A reduction or scan along `dim`: the dim's length."""
    shape = specs[0].shape
    return shape[attrs["dim"] % len(shape)] if shape else 1


def terms_last_dim(specs: list[TensorSpec], attrs: dict[str, Any]) -> int:
    """A normalisation over the last dim, or a product that sums it (linear, matmul): its length."""
    return specs[0].shape[-1] if specs[0].shape else 1


LOSS_REDUCTIONS = ("mean", "sum", "batchmean")  # a loss's reductions that sum its terms


def terms_of_loss(specs: list[TensorSpec], attrs: dict[str, Any]) -> int:
    """A loss: with a reduction that sums them, every element of its input; with reduction "none", one."""
    return math.prod(specs[0].shape) if attrs.get("reduction") in LOSS_REDUCTIONS else 1


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(dims) > 1:
            raise GraphError(f"shapes {shapes} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def broadcastable_to(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape`, or it with some dims 1: an operand that broadcasts to it (one value along those dims)."""
    return tuple(1 if rng.random() < 0.3 else d for d in shape)


def norm_dim(dim: int, rank: int) -> int:
    if not -rank <= dim < rank:
        raise GraphError(f"dim {dim} out of range for rank {rank}")
    return dim % rank


def result_dtype(specs: list[TensorSpec]) -> str:
    """torch's result dtype of float tensors: 0-d ones take part only where every one is 0-d (bf16[4] + fp32[] is bf16)."""
    dimensioned = [s.dtype for s in specs if s.shape]
    return promote(*(dimensioned or [s.dtype for s in specs]))


def elementwise(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(broadcast_shapes(*(s.shape for s in specs)), result_dtype(specs))


def same(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return specs[0]


def reduced_shape(shape: tuple[int, ...], attrs: dict) -> tuple[int, ...]:
    dim = norm_dim(attrs["dim"], max(len(shape), 1))  # torch reads a 0-d value's dim 0 or -1 as one element's
    if not shape:
        return ()  # 0-d, keepdim or not
    out = list(shape)
    if attrs.get("keepdim"):
        out[dim] = 1
    else:
        del out[dim]
    return tuple(out)


def reduce(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(reduced_shape(specs[0].shape, attrs), specs[0].dtype)


def along_dim(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    norm_dim(attrs["dim"], max(len(specs[0].shape), 1))  # a scan or softmax of a 0-d value along its dim 0 or -1 is 0-d
    return specs[0]


def last_dim(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if not specs[0].shape:
        raise GraphError("norm needs at least one dim")
    return specs[0]


def need_rank(spec: TensorSpec, low: int, high: int = 8) -> None:
    if not low <= len(spec.shape) <= high:
        raise GraphError(f"needs rank {low}..{high}, got {spec.shape}")


# --- attribute drawers ---------------------------------------------------------------


def draw_dim(rng: random.Random, specs: list[TensorSpec]) -> dict:
    """A dim of the first argument, counted from the front or the back; of a 0-d value, 0 or -1 (which torch's ops along
    a dim take as a dim of one element; an op that takes no 0-d value refuses it in its shape rule or its family)."""
    rank = max(len(specs[0].shape), 1)
    return {"dim": rng.randrange(rank) - (rank if rng.random() < 0.5 else 0)}


def draw_reduce(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**draw_dim(rng, specs), "keepdim": rng.random() < 0.5}


def draw_var(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {**draw_reduce(rng, specs), "correction": rng.choice([0, 1])}


RECIPE_SHARE = 0.5  # how often a float attribute comes from the scalar recipe instead of its usual values


def draw_float(name: str, legal: str, usual: list[float]) -> DrawAttrs:
    """A float attribute (a margin, a slope, an eps): one of its usual values, or as often a value of the scalar recipe,
    inexact in bf16 among them (pytorch#185517's margin 1.7), made `legal` (a key of `scalars.LEGAL`)."""

    def draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
        return {name: scalar(rng, legal, specs[0]) if rng.random() < RECIPE_SHARE else rng.choice(usual)}

    return draw


draw_eps = draw_float("eps", "unit_interval", [1e-5, 1e-6])
EPS = (("eps", "unit_interval"),)  # a norm's eps may be passed at call time


def scalar(rng: random.Random, legal: str, spec: TensorSpec) -> float | int:
    """A scalar from the recipe (`scalars.draw_value`); a "bound" stays within the dtype's finite range."""
    if legal not in ("bound", "bound_nonneg"):
        return draw_value(rng, legal)
    value = draw_value(rng, "any" if legal == "bound" else "nonneg")
    limit = FORMATS[spec.dtype].max_value if spec.dtype in FORMATS else float("inf")
    return value if abs(value) <= limit else (limit if value > 0 else -limit)


def draw_scalar(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"value": scalar(rng, "any", specs[0])}


def draw_scalars(*named: tuple[str, str]) -> DrawAttrs:
    """A drawer of scalar attributes from the recipe, each (name, legal)."""

    def draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
        return {name: scalar(rng, legal, specs[0]) for name, legal in named}

    return draw


def draw_ordered(low: str, high: str) -> DrawAttrs:
    """Two bounds from the recipe, low <= high (hardtanh insists)."""

    def draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
        a, b = sorted((scalar(rng, "bound", specs[0]), scalar(rng, "bound", specs[0])))
        return {low: a, high: b}

    return draw


def lines_at(*names: str, fixed: tuple[float, ...] = (), mirrored: bool = False) -> Lines:
    """The lines an op draws: its attributes `names` (and their negatives with `mirrored`), and fixed values."""

    def lines(attrs: dict[str, Any]) -> list[float]:
        found = [float(attrs[n]) for n in names if isinstance(attrs.get(n), (int, float))]
        return list(fixed) + found + ([-v for v in found] if mirrored else [])

    return lines


def draw_choice(name: str, choices: list[Any]) -> DrawAttrs:
    """A drawer of one attribute from fixed choices."""

    def draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
        return {name: rng.choice(choices)}

    return draw


def draw_both(*drawers: DrawAttrs) -> DrawAttrs:
    def draw(rng: random.Random, specs: list[TensorSpec]) -> dict:
        out: dict[str, Any] = {}
        for d in drawers:
            out.update(d(rng, specs))
        return out

    return draw
