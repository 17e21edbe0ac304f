"""Captured FX nodes onto numfuzz's op table: which op a node is, with its attributes and tensor arguments.

An op's forms are its `OpSpec.call` template and the templates of `OpSpec.captured` (the other ways a
captured graph writes it: `x.view(...)` for reshape, `-x` for neg). Each template is parsed once into
a pattern: the function it calls (a torch function, an operator, or a tensor method, which stands for
the torch function of that name with the tensor first) and, per argument, a slot: a tensor argument,
an attribute, a literal, or a tuple of slots. A node matches a pattern when it calls the same
function and its arguments, bound to one of that function's signatures as the template's are, fill
the slots; the op's shape rule must then give the node's traced shape and dtype. Templates that
compute more than one call (`torch.where({0} > 0, ...)`) have no pattern. Casts, views (slices, a
split's pieces, `x[:, None]`, flatten: `numfuzz.model.views`) and value-preserving calls (`.contiguous()`,
a device move, dropout in eval) are matched by code.
"""

from __future__ import annotations

import ast
import functools
import inspect
import operator
import re
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch._jit_internal import boolean_dispatched
from torch.fx.operator_schemas import get_signature_for_torch_op

from numfuzz.model.views import is_split, view_of
from numfuzz.program.autocast import ATTR as AUTOCAST
from numfuzz.program.autocast import FP32, LOWER
from numfuzz.program.dtypes import PROGRAM_DTYPES
from numfuzz.program.ir import GraphError, Node, TensorSpec
from numfuzz.program.op_spec import INDEX_DTYPE
from numfuzz.program.ops import OPS, infer_node
from numfuzz.program.values import torch_dtype

DTYPE_NAMES = {torch_dtype(name): name for name in (*PROGRAM_DTYPES, "fp64", INDEX_DTYPE)}  # the dtypes a mapped value may have
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv, ast.MatMult: operator.matmul}
_CONVERSIONS = frozenset({"float", "half", "bfloat16", "double", "to", "type", "type_as"})  # methods that convert a dtype
_PASS_THROUGH_METHODS = {"contiguous", "clone", "detach"}
# In-place operators (`out += identity`): the same values as their out-of-place forms, which the patterns know
_IN_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul, operator.itruediv: operator.truediv}


@dataclass(frozen=True)
class Slot:
    # "tensor" (argument `index` of the op), "attr" (attribute `name`), "literal" (`value`), "tuple" (`parts`),
    # "shape" (the sizes of argument `index` that the slice `value` picks: `{0}.shape[-1:]`)
    kind: str
    index: int = 0
    name: str = ""
    value: Any = None
    parts: tuple[Slot, ...] = ()


@dataclass(frozen=True)
class Pattern:
    op: str
    function: Any  # a callable, or a method name where torch has no function of that name
    args: tuple[Slot, ...]
    kwargs: tuple[tuple[str, Slot], ...]


@dataclass
class Mapped:
    """A node as an op of the table: `Node.make(op, <its tensor arguments' values>, **attrs)`."""

    op: str
    tensors: list[torch.fx.Node]
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class PassThrough:
    """A call that keeps its argument's values (`.contiguous()`, a device move, a split whose pieces map as slices of
    it): the op table needs nothing for it."""

    source: torch.fx.Node


def _slot(node: ast.expr) -> Slot | None:
    if isinstance(node, ast.Name) and node.id.startswith("__t"):
        return Slot("tensor", index=int(node.id[3:]))
    if isinstance(node, ast.Name) and node.id.startswith("__a_"):
        return Slot("attr", name=node.id[4:])
    if isinstance(node, ast.Constant):
        return Slot("literal", value=node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and _is_shape_of_tensor(node.value):
        try:
            bounds = [None if b is None else ast.literal_eval(b) for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        except ValueError:
            return None
        return Slot("shape", index=int(node.value.value.id[3:]), value=slice(*bounds))
    if isinstance(node, ast.Tuple):
        parts = [_slot(e) for e in node.elts]
        return None if any(p is None for p in parts) else Slot("tuple", parts=tuple(parts))
    return None  # computed arguments (`{0} > 0`, `{0}.long()`): not one call


def _is_shape_of_tensor(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name) and node.value.id.startswith("__t")


def _function(call: ast.Call) -> tuple[Any, list[ast.expr]] | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id.startswith("__t"):
        return getattr(torch, func.attr, func.attr), [func.value, *call.args]  # a method: the tensor goes first
    if not all(isinstance(n, (ast.Attribute, ast.Name, ast.Load)) for n in ast.walk(func)):
        return None  # a method of a computed value: more than one call
    try:
        return eval(compile(ast.Expression(func), "<template>", "eval"), {"torch": torch, "F": F}), list(call.args)
    except (NameError, AttributeError):
        return None


def parse_template(op: str, template: str, arity: int) -> Pattern | None:
    """The pattern of one template, or None where the template is not a single call of tensors and attributes."""
    text = template.replace("{args}", ", ".join(f"{{{k}}}" for k in range(arity)))
    text = re.sub(r"\{(\d+)\}", r"__t\1", text)
    text = re.sub(r"\{(\w+)(?:![rs])?\}", r"__a_\1", text)
    tree = ast.parse(text, mode="eval").body
    if isinstance(tree, ast.BinOp) and type(tree.op) in _BINARY:
        function, args, keywords = _BINARY[type(tree.op)], [tree.left, tree.right], []
    elif isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.USub):
        function, args, keywords = operator.neg, [tree.operand], []
    elif isinstance(tree, ast.Call) and (found := _function(tree)) is not None:
        function, args = found
        keywords = tree.keywords
    else:
        return None
    slots = [_slot(a) for a in args]
    named = [(k.arg, _slot(k.value)) for k in keywords]
    if any(s is None for s in slots) or any(k is None or s is None for k, s in named):
        return None
    return Pattern(op, function, tuple(slots), tuple(named))


@functools.cache
def patterns() -> dict[Any, list[Pattern]]:
    """Every op's patterns, by the function they call."""
    found: dict[Any, list[Pattern]] = {}
    for spec in OPS.values():
        for template in filter(None, (spec.call, *spec.captured)):
            pattern = parse_template(spec.name, template, spec.arity)
            if pattern is not None:
                found.setdefault(pattern.function, []).append(pattern)
    return found


@functools.cache
def _signatures(function: Any) -> tuple[inspect.Signature | None, ...]:
    if isinstance(function, str) or function in _BINARY.values() or function is operator.neg:
        return (None,)  # positional only
    # F.max_pool2d takes (*args, **kwargs) and dispatches on return_indices: its parameters are the plain branch's
    if function in boolean_dispatched:  # (`in`: a builtin takes no weak reference, which `get` would raise on)
        function = boolean_dispatched[function]["if_false"]
    try:
        return (inspect.signature(function),)
    except (ValueError, TypeError):
        return tuple(get_signature_for_torch_op(function) or ()) or (None,)


def _bind(signature: inspect.Signature | None, args: tuple, kwargs: dict) -> dict[str, Any] | None:
    if signature is None:
        return None if kwargs else {str(k): a for k, a in enumerate(args)}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _attr_value(value: Any) -> Any:
    if isinstance(value, torch.dtype):
        return DTYPE_NAMES.get(value, value)
    if isinstance(value, (list, tuple)):
        return tuple(_attr_value(v) for v in value)
    return value


def _has_node(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_node(v) for v in value)
    return isinstance(value, torch.fx.Node)


def _fill(slot: Slot, value: Any, tensors: dict[int, torch.fx.Node], attrs: dict[str, Any]) -> bool:
    if slot.kind == "tensor":
        if not (isinstance(value, torch.fx.Node) and isinstance(value.meta.get("example_value"), torch.Tensor)):
            return False
        tensors[slot.index] = value
        return True
    if slot.kind == "tuple":
        if not isinstance(value, (list, tuple)) or len(value) != len(slot.parts):
            return False
        return all(_fill(p, v, tensors, attrs) for p, v in zip(slot.parts, value))
    if _has_node(value):
        return False
    if slot.kind == "shape":  # filled after the tensors (`_match`)
        shape = tensors[slot.index].meta["example_value"].shape if slot.index in tensors else None
        return isinstance(value, (list, tuple)) and shape is not None and tuple(value) == tuple(shape[slot.value])
    if slot.kind == "attr":
        attrs[slot.name] = _attr_value(value)
        return True
    return value == slot.value


def _match(pattern: Pattern, args: tuple, kwargs: dict) -> Mapped | None:
    for signature in _signatures(pattern.function):
        bound = _bind(signature, args, kwargs)
        wanted = _bind(signature, pattern.args, dict(pattern.kwargs))
        if bound is None or wanted is None or bound.keys() != wanted.keys():
            continue
        tensors: dict[int, torch.fx.Node] = {}
        attrs: dict[str, Any] = {}
        # a private parameter (F.softmax's _stacklevel, which nn.Softmax sets) says nothing about the values
        # a shape slot last: it reads a tensor's traced sizes
        ordered = sorted(wanted.items(), key=lambda item: isinstance(item[1], Slot) and item[1].kind == "shape")
        filled = (_fill(s, bound[name], tensors, attrs) if isinstance(s, Slot) else s == bound[name] for name, s in ordered if not name.startswith("_"))
        if all(filled):
            if sorted(tensors) == list(range(len(tensors))):
                return Mapped(pattern.op, [tensors[k] for k in range(len(tensors))], attrs)
    return None


def spec_of(value: Any, mask_as_index: bool = False) -> TensorSpec | None:
    """The op table's spec of a traced value, or None where it is not a tensor of a dtype the table has; with
    `mask_as_index` a boolean mask is an index of 0s and 1s (`program_value`), as an op's index argument takes it."""
    if not isinstance(value, torch.Tensor) or (value.dtype not in DTYPE_NAMES and not (mask_as_index and value.dtype == torch.bool)):
        return None
    try:
        return TensorSpec(tuple(int(d) for d in value.shape), DTYPE_NAMES.get(value.dtype, INDEX_DTYPE))
    except (GraphError, TypeError):
        return None


def _calls(node: torch.fx.Node) -> tuple[Any, tuple, dict]:
    """The function a node calls, with its arguments; a method as the torch function of its name, or its name."""
    if node.op == "call_method":
        function = getattr(torch, node.target, node.target)  # x.mean(...) is torch.mean(x, ...); x.view has no function
        if not callable(function):
            function = node.target
        return function, tuple(node.args), dict(node.kwargs)
    return _IN_PLACE.get(node.target, node.target), tuple(node.args), dict(node.kwargs)


def _by_code(node: torch.fx.Node) -> Mapped | PassThrough | None:
    """Casts, views (`numfuzz.model.views`) and calls that keep their argument's values."""
    if node.op == "call_method" and node.target in _CONVERSIONS and isinstance(node.args[0], torch.fx.Node):
        source = node.args[0].meta.get("example_value")
        out = node.meta.get("example_value")
        if isinstance(source, torch.Tensor) and isinstance(out, torch.Tensor):
            if out.dtype == source.dtype:
                return PassThrough(node.args[0])
            if out.dtype in DTYPE_NAMES and DTYPE_NAMES[out.dtype] != INDEX_DTYPE:
                return Mapped("cast", [node.args[0]], {"dtype": DTYPE_NAMES[out.dtype]})
    if node.op == "call_method" and node.target in _PASS_THROUGH_METHODS and len(node.args) == 1:
        return PassThrough(node.args[0])
    if node.target is F.dropout and not node.kwargs.get("training", node.args[2] if len(node.args) > 2 else True):
        return PassThrough(node.args[0])
    if is_split(node):  # its pieces map, each a slice of its argument
        return PassThrough(node.args[0])
    view = view_of(node)
    return Mapped(view[0], [view[1]], view[2]) if view is not None else None


def _checked(mapped: Mapped, node: torch.fx.Node) -> Mapped | None:
    """The mapping, where the op's shape rule gives the node's traced shape and dtype; a shape attribute is taken from the result."""
    specs = [spec_of(t.meta.get("example_value"), k == OPS[mapped.op].index_arg) for k, t in enumerate(mapped.tensors)]
    out = spec_of(node.meta.get("example_value"))
    if out is None or any(s is None for s in specs) or any(s.dtype not in OPS[mapped.op].dtypes and s.dtype != INDEX_DTYPE for s in specs):
        return None
    if "shape" in mapped.attrs:  # view(-1, n), expand(1, -1): the sizes as they came out
        mapped.attrs["shape"] = out.shape
    policy = OPS[mapped.op].autocast_for(mapped.attrs)
    # under autocast (its region is not in the node: `region` marks it), an op of its lists comes out in another dtype
    for region in (None, out.dtype if policy == LOWER else "bf16" if policy == FP32 else None):
        attrs = {**mapped.attrs, AUTOCAST: region} if region else mapped.attrs
        try:
            inferred = infer_node(Node.make(mapped.op, list(range(len(specs))), **attrs), specs)
        except (GraphError, KeyError, TypeError, ValueError):
            continue
        if (inferred.shape, inferred.dtype) == (out.shape, out.dtype):
            return mapped
    return None


def map_node(node: torch.fx.Node) -> Mapped | PassThrough | None:
    """The op-table form of a captured call, or None where the table has no op for it."""
    if node.op not in ("call_function", "call_method"):
        return None
    special = _by_code(node)
    if isinstance(special, PassThrough):
        return special
    if special is not None:
        return _checked(special, node)
    function, args, kwargs = _calls(node)
    for pattern in patterns().get(function, []):
        mapped = _match(pattern, args, kwargs)
        if mapped is None and node.op == "call_method" and len(args) > 2:  # x.view(2, 16, -1): the sizes as one tuple
            mapped = _match(pattern, (args[0], tuple(args[1:])), kwargs)
        if mapped is not None and (checked := _checked(mapped, node)) is not None:
            return checked
    return None


def autocast_policy_of(function: Any) -> str:
    """The autocast policy (`OpSpec.autocast`) of the op a torch function, tensor method or operator is; "" for none."""
    name = getattr(function, "__name__", "")
    for key in (function, getattr(torch, name, None), getattr(torch, name.strip("_"), None)):
        policies = {OPS[p.op].autocast for p in patterns().get(key, [])} - {""} if key is not None else set()
        if len(policies) == 1:
            return policies.pop()
    return ""


@functools.cache
def constant_functions() -> frozenset[Any]:
    """The functions of the ops the op table calls constants (`OpSpec.constant`): their values do not depend on their arguments'."""
    return frozenset(p.function for found in patterns().values() for p in found if OPS[p.op].constant)


def program_value(value: Any) -> Any:
    """A recorded value as a program's input holds it: a boolean mask as 0s and 1s of the index dtype (an attention
    mask, which only an op's index argument maps)."""
    return value.long() if isinstance(value, torch.Tensor) and value.dtype == torch.bool else value


def is_program_dtype(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and DTYPE_NAMES.get(value.dtype) in (*PROGRAM_DTYPES, INDEX_DTYPE)
