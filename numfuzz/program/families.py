"""Op families: how the generator finds an op's arguments and the attributes its family owns, one registered function each.

An op names its family (`OpSpec.family`); the table (`numfuzz.program.ops`) refuses, at import, an op whose family no
module registered. A family used across the table (one argument, a broadcast partner, fresh operands) is registered
here; one owned by a single table module (the shape families, a linear's weight) beside its ops there. The generator
(`numfuzz.program.generator`) calls the family's function and knows no family by name.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Callable, Protocol

from numfuzz.program.dtypes import is_integer
from numfuzz.program.ir import GraphError, Node, TensorSpec
from numfuzz.program.op_spec import INDEX_DTYPE, OpSpec, Terms, broadcast_shapes, one_term, terms_along_dim, terms_last_dim


class DrawLimits(Protocol):
    """What a family's function reads of the space drawn from (`numfuzz.program.space.GenConfig` has it): named here, so
    that the families do not import the space, which imports the table, which imports the families."""

    max_dim: int  # the largest size of a drawn dim
    repeat: float  # the chance that one value is both operands
    zero_dim: float  # the chance that a broadcast partner is 0-d


class Builder(Protocol):
    """What a family's function may ask of the graph being drawn (`generator._Builder`)."""

    config: DrawLimits
    rng: random.Random  # the "structure" stream: which values an op takes
    specs: list[TensorSpec]  # every value so far: inputs, then nodes

    def draw(self, name: str) -> random.Random: ...  # the stream of a draw named in `numfuzz.address.GRAPH_DRAWS`
    def floats(self) -> list[int]: ...
    def new_input(self, shape: tuple[int, ...], dtype: str, domain: str = "any") -> int: ...
    def new_index_input(self, shape: tuple[int, ...], bound: int, dtype: str = INDEX_DTYPE) -> int: ...
    def new_integer_input(self, shape: tuple[int, ...], dtype: str) -> int: ...
    def integers(self, dtype: str) -> list[int]: ...
    def ensure_domain(self, value: int, domain: str) -> int: ...
    def add_node(self, node: Node) -> int: ...
    def partner_dtype(self, dtype: str, same: bool) -> str: ...


# (builder, op, its first value, the attributes its `draw_attrs` drew) -> (its arguments, its attributes)
DrawArgs = Callable[[Builder, OpSpec, int, dict[str, Any]], tuple[list[int], dict[str, Any]]]


@dataclass(frozen=True)
class Family:
    name: str
    draw: DrawArgs
    # Each output element from the same position of its (broadcast) arguments: it takes a 0-d value, and the judge
    # measures its rounding error at every element (`numfuzz.judge.rounding_error`). Any other family needs a dim.
    pointwise: bool = False
    # Its ops take a 0-d first value along dim 0 or -1, which torch reads as a dim of one element (a reduction, a scan,
    # a softmax: `torch.sum(x0d, dim=0)` is 0-d, keepdim or not)
    zero_d: bool = False
    # How many terms one output element of its ops sums (`OpSpec.terms`), where the op does not say: None where the
    # family has no one answer (fresh operands, windows), so that each of its ops states its own
    terms: Terms | None = None


FAMILIES: dict[str, Family] = {}


def register(name: str, draw: DrawArgs, pointwise: bool = False, terms: Terms | None = None, zero_d: bool = False) -> Family:
    """Registers a family under `name` (once: a second registration of a name is an error)."""
    if name in FAMILIES:
        raise ValueError(f"op family {name!r} is registered twice")
    FAMILIES[name] = Family(name, draw, pointwise, zero_d, terms)
    return FAMILIES[name]


def family_of(op: OpSpec) -> Family:
    """The op's registered family."""
    try:
        return FAMILIES[op.family]
    except KeyError:
        raise ValueError(f"op {op.name!r}: family {op.family!r} is none of {', '.join(sorted(FAMILIES))}") from None


def with_terms(op: OpSpec) -> OpSpec:
    """The op as the table holds it: its terms its own, else its family's (an error where neither says)."""
    family = family_of(op)
    if op.terms is not None:
        return op
    if family.terms is None:
        raise ValueError(f"op {op.name!r} of family {op.family!r}: say how many terms one output element sums (terms=)")
    return replace(op, terms=family.terms)


def alone(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """The first value is the only argument; its attributes are the op's own (`OpSpec.draw_attrs`)."""
    return [first], attrs


def broadcast_partner(b: Builder, first: int, op: OpSpec) -> int:
    """A value that broadcasts against the first: the first itself, another value, or a new input of its shape, of a
    lower rank, with some dims 1, or 0-d."""
    spec = b.specs[first]
    if b.draw("repeat").random() < b.config.repeat:  # one value as both operands
        return first
    if b.rng.random() < 0.35:
        for cand in b.rng.sample(range(len(b.specs)), len(b.specs)):
            other = b.specs[cand]
            if cand != first and not is_integer(other.dtype) and (not op.same_dtype or other.dtype == spec.dtype):
                try:
                    broadcast_shapes(spec.shape, other.shape)
                    return cand
                except GraphError:
                    continue
    shape, shapes = list(spec.shape), b.draw("shapes")
    zero_dim = b.config.zero_dim
    style = shapes.random() * (1.0 - zero_dim)  # scaled, so that each other style keeps its share
    if b.draw("zero_dim").random() < zero_dim:  # 0-d, which torch's promotion ranks below dimensioned tensors
        shape = []
    elif style < 0.2 and shape:  # a lower-rank partner, as RoPE's cos/sin
        shape = shape[shapes.randint(1, len(shape)) :] if len(shape) > 1 else shape
    elif style < 0.45:
        shape = [1 if shapes.random() < 0.5 else d for d in shape]
    return b.new_input(tuple(shape), b.partner_dtype(spec.dtype, op.same_dtype))


def with_partners(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """The first value and a broadcast partner for each further argument."""
    return [first] + [broadcast_partner(b, first, op) for _ in range(op.arity - 1)], attrs


def with_operands(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """The first value and new inputs shaped by the op's `operands`; its index argument an integer input in its bound."""
    spec, args = b.specs[first], [first]
    for i, shape in enumerate(op.operands(b.draw("shapes"), spec, attrs), start=1):
        if i == op.index_arg and op.index_bound is not None:
            args.append(b.new_index_input(shape, op.index_bound(spec, attrs), op.index_dtype))
        else:
            args.append(b.new_input(shape, spec.dtype, op.domain(i)))
    return args, attrs


register("unary", alone, pointwise=True, terms=one_term)
register("elementwise", with_partners, pointwise=True, terms=one_term)
register("reduce", alone, terms=terms_along_dim, zero_d=True)
register("norm", alone, terms=terms_last_dim)
register("window", alone)  # pooling, interpolation, padding, repeat: one argument, not pointwise
register("fresh", with_operands)
