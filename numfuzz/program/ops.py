"""The op table: one entry per op, as data. Arity, family, input domains, attributes, dtypes and shape rules.

The entries live in `numfuzz.program.op_table`, one module per kind of op (each module found, none listed);
this module gathers them and type-checks nodes. No torch here: how an op becomes torch code lives in
`numfuzz.program.lowering`.
"""

from __future__ import annotations

import importlib
import pkgutil

from numfuzz.program import op_table
from numfuzz.program.autocast import POLICIES, autocast_args
from numfuzz.program.dtypes import is_integer
from numfuzz.program.families import FAMILIES, with_terms
from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.op_spec import BOUND_KINDS, DOMAINS, OpSpec, broadcast_shapes

__all__ = ["DATABASE", "DOMAINS", "FAMILIES", "OPS", "OpSpec", "broadcast_shapes", "index_ranges", "infer_node", "infer_specs", "lookup", "own_ops"]


def _table_modules() -> list:
    """Every module of `numfuzz.program.op_table`, by name: a new table file needs no edit elsewhere."""
    names = sorted(info.name for info in pkgutil.iter_modules(op_table.__path__) if not info.name.startswith("_"))
    return [importlib.import_module(f"{op_table.__name__}.{name}") for name in names]


def _gathered() -> dict[str, OpSpec]:
    """The table, each entry checked: one per name, a registered family, a known autocast policy and error bound."""
    ops: dict[str, OpSpec] = {}
    for module in _table_modules():
        for spec in module.SPECS:
            if spec.name in ops:
                raise ValueError(f"op {spec.name!r} is in the table twice")
            spec = with_terms(spec)  # an unknown family is an error here, at import, not at the first draw
            if spec.autocast not in POLICIES:
                raise ValueError(f"op {spec.name!r}: autocast policy {spec.autocast!r} is none of {POLICIES}")
            if spec.bound not in BOUND_KINDS:
                raise ValueError(f"op {spec.name!r} says nothing of its error bound: give it one of {', '.join(BOUND_KINDS)}")
            ops[spec.name] = spec
    return ops


OPS: dict[str, OpSpec] = _gathered()
DATABASE = "database"  # the family of the op databases' ops (`op_table.database`)


def own_ops() -> dict[str, OpSpec]:
    """The hand-written table: every op but the op databases' (whose facts are derived, `op_table.database`)."""
    return {name: spec for name, spec in OPS.items() if spec.family != DATABASE}


def autocast_policy(node: Node) -> str:
    """The node's autocast policy (`numfuzz.program.autocast`): "lower", "fp32" or "", its op's for its attributes."""
    return lookup(node.op).autocast_for(node.attr_dict)


def autocast_ops(policy: str) -> frozenset[str]:
    """The ops with this autocast policy."""
    return frozenset(name for name, spec in OPS.items() if spec.autocast == policy)


def lookup(name: str) -> OpSpec:
    try:
        return OPS[name]
    except KeyError:
        raise GraphError(f"unknown op {name!r}") from None


def infer_node(node: Node, specs: list[TensorSpec]) -> TensorSpec:
    op = lookup(node.op)
    if not op.arity <= len(node.args) <= op.arity + op.optional:
        raise GraphError(f"{node.op} takes {op.arity} arguments, got {len(node.args)}")
    args = autocast_args(node, [specs[a] for a in node.args], op.autocast_for(node.attr_dict))  # as the op sees them inside an autocast region
    if op.index_arg is not None and args[op.index_arg].dtype != op.index_dtype:
        raise GraphError(f"{node.op} takes {op.index_dtype} indices as argument {op.index_arg}, got {args[op.index_arg].dtype}")
    floats = [s for i, s in enumerate(args) if i != op.index_arg]
    if op.same_dtype and len({s.dtype for s in floats}) > 1:
        raise GraphError(f"{node.op} needs one dtype, got {[s.dtype for s in floats]}")
    if any(s.dtype not in op.dtypes for s in floats):
        raise GraphError(f"{node.op} takes {op.dtypes}, got {[s.dtype for s in floats]}")
    try:
        return op.infer(args, node.attr_dict)
    except KeyError as exc:
        raise GraphError(f"{node.op} is missing attribute {exc}") from None


def infer_specs(graph: Graph) -> list[TensorSpec]:
    """The spec of every value; raises GraphError when the graph is ill-typed."""
    specs = list(graph.inputs)
    for node in graph.nodes:
        specs.append(infer_node(node, specs))
    if any(o < len(graph.inputs) and is_integer(specs[o].dtype) for o in graph.outputs):
        raise GraphError("an integer input is not an output: an integer value is judged where an op made it")
    return specs


def index_ranges(graph: Graph, specs: list[TensorSpec] | None = None) -> dict[int, tuple[int, frozenset[int]]]:
    """For each integer input: (bound, extra) such that its values must lie in [0, bound) or in `extra`
    (an `ignore_index`), over every node that reads it; the tightest bound wins."""
    specs = specs if specs is not None else infer_specs(graph)
    ranges: dict[int, tuple[int, frozenset[int]]] = {}
    for node in graph.nodes:
        op = OPS[node.op]
        if op.index_arg is None or op.index_bound is None:
            continue
        value = node.args[op.index_arg]
        bound = op.index_bound(specs[node.args[0]], node.attr_dict)
        ignore = node.attr("ignore_index")
        extra = frozenset() if ignore is None else frozenset({int(ignore)})
        if value in ranges:
            old_bound, old_extra = ranges[value]
            bound, extra = min(bound, old_bound), extra & old_extra
        ranges[value] = (bound, extra)
    return ranges
