"""The op table: one entry per op, as data. Arity, family, input domains, attributes, dtypes and shape rules.

The entries live in `numfuzz.program.op_table`, one module per family of ops; this module
gathers them and type-checks nodes. No torch here: how an op becomes torch code lives in
`numfuzz.program.lowering`.
"""

from __future__ import annotations

from numfuzz.program.ir import Graph, GraphError, Node, TensorSpec
from numfuzz.program.op_spec import DOMAINS, OpSpec, broadcast_shapes
from numfuzz.program.op_table import binary, linalg, losses, reductions, shaping, unary

__all__ = ["DOMAINS", "OPS", "OpSpec", "broadcast_shapes", "infer_node", "infer_specs", "lookup"]

OPS: dict[str, OpSpec] = {}
for _module in (unary, binary, shaping, reductions, linalg, losses):
    for _spec in _module.SPECS:
        if _spec.name in OPS:
            raise ValueError(f"op {_spec.name!r} is in the table twice")
        OPS[_spec.name] = _spec


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
    if any(s.dtype not in op.dtypes for s in args):
        raise GraphError(f"{node.op} takes {op.dtypes}, got {[s.dtype for s in args]}")
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
