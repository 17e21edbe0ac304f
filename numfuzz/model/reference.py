"""A float64 reference of a user's model as written: every op exact, every explicit cast rounding where it stands.

The model is captured as Dynamo captures it for a compiler (FX graphs of torch-level calls, in
which the model's dtypes are constants: `hidden_states.to(torch.bfloat16)`), and each graph runs
in float64 instead of being compiled: its floating inputs (parameters included) upcast exactly,
every op computed in float64, and every conversion the model asks for (`.to(dtype)`, `.float()`,
a factory's `dtype=`) rounding the value once to that dtype and carrying it on in float64; an op
the op table gives its own float64 reference (`OpSpec.reference`: sinc, digamma, a loss) computes by
it. That is the reference numfuzz's own programs get (`program.lowering`, reference=True): Qwen2's RMSNorm
upcasts to fp32 and casts back, and that cast rounds. A float64 copy of the model would not:
its `input_dtype` is float64, and the cast back is lost.

Where Dynamo breaks the graph, the graphs after the break see float64 values, and Dynamo traces
them in float64: their casts back to a narrow dtype are lost. `Reference.graphs` counts them.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map

from numfuzz.model.mapping import Mapped, autocast_policy_of, constant_functions, map_node
from numfuzz.program.autocast import FP32, LOWER
from numfuzz.program.exact import HELPERS
from numfuzz.program.lowering import round_once
from numfuzz.program.ops import OPS

_DTYPE_METHODS = {
    torch.Tensor.float: torch.float32,
    torch.Tensor.half: torch.float16,
    torch.Tensor.bfloat16: torch.bfloat16,
    torch.Tensor.double: torch.float64,
}


def _round(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`x` rounded once to `dtype` and carried in float64 (torch's own conversion of float64 to bf16 or fp16 rounds
    twice, through fp32: `lowering.round_once` does not); a conversion to an integer or bool dtype happens for real."""
    if not dtype.is_floating_point:
        return x.to(dtype)
    return round_once(x.to(torch.float64), dtype).to(torch.float64)  # an integer too: ids past 256 round in bf16 as eager rounds them


def _makes_a_constant(func: Callable, args: tuple, kwargs: dict) -> bool:
    """A call whose `dtype=` makes a value in that dtype (made in float64, then rounded to it), not one that widens its
    input first (a reduction's): a call of no floating tensor (`torch.full`, `torch.arange`), or of an op the op
    table calls a constant (`OpSpec.constant`: `zeros_like`, whose values do not depend on its argument's)."""
    leaves, _ = tree_flatten((args, kwargs))
    return func in constant_functions() or not any(isinstance(v, torch.Tensor) and v.is_floating_point() for v in leaves)


def _conversion_dtype(func: Callable, args: tuple, kwargs: dict) -> torch.dtype | None:
    """The dtype a `.to(...)`, `.type(...)` or `.float()`-style call converts to; None for any other call."""
    if func in _DTYPE_METHODS:
        return _DTYPE_METHODS[func]
    if func not in (torch.Tensor.to, torch.Tensor.type):
        return None
    found = kwargs.get("dtype")
    for a in args[1:]:
        if isinstance(a, torch.dtype):
            found = a
        elif isinstance(a, torch.Tensor):  # .to(other): other's dtype
            found = a.dtype
    return found


def _autocast_cast(func: Callable, args: tuple) -> torch.dtype | None:
    """The dtype autocast casts `func`'s float arguments to, where the captured graph has entered autocast here: by the
    op table's autocast policy of the op the function is (`OpSpec.autocast`, checked against torch's lists). Real
    autocast leaves the reference's float64 values alone; this does what it does to the model's."""
    tensor = next((a for a in args if isinstance(a, torch.Tensor)), None)
    if tensor is None or not torch.is_autocast_enabled(tensor.device.type):
        return None
    policy = autocast_policy_of(func)
    return torch.get_autocast_dtype(tensor.device.type) if policy == LOWER else torch.float32 if policy == FP32 else None


def _grouped_functions() -> tuple[Callable, ...]:
    import torch.nn.functional as F

    return tuple(f for f in (getattr(torch, "_grouped_mm", None), getattr(F, "grouped_mm", None)) if f is not None)


def grouped_mm_float64(a: torch.Tensor, b: torch.Tensor, offs: torch.Tensor | None = None, bias: Any = None, out_dtype: Any = None) -> torch.Tensor:
    """`grouped_mm` in float64, which its kernels do not take: a (tokens, k) input whose rows `offs` (each group's end)
    split among a (groups, k, n) weight's groups, each group's rows times its matrix (a mixture of experts'
    experts, as transformers 5 calls it); without `offs`, a batched matmul."""
    if offs is None or a.dim() != 2 or b.dim() != 3 or bias is not None:
        if offs is None and bias is None:
            return torch.matmul(a, b)
        raise NotImplementedError(f"grouped_mm of a {a.dim()}-d by a {b.dim()}-d tensor in float64")
    ends = offs.tolist()
    parts = [a[start:end] @ b[g] for g, (start, end) in enumerate(zip([0, *ends[:-1]], ends))]
    return torch.cat([*parts, a.new_zeros(a.shape[0] - ends[-1], b.shape[-1])]) if ends else a.new_zeros(a.shape[0], b.shape[-1])


class RoundAtCasts(TorchFunctionMode):
    """Runs float64 values through a model's code: its casts round (unless `casts_round` is off: the program with every
    cast a no-op, as a compiler that drops them computes it), autocast's casts too, its factories make values of the dtype asked for."""

    def __init__(self, casts_round: bool = True):
        super().__init__()
        self.casts_round = casts_round

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _grouped_functions() and isinstance(args[0], torch.Tensor) and args[0].dtype == torch.float64:
            return grouped_mm_float64(*args, **kwargs)
        under = _autocast_cast(func, args) if self.casts_round else None
        if under is not None:  # autocast's own casts of the op's float arguments, rounding as the model's do
            args, kwargs = tree_map(lambda v: _round(v, under) if isinstance(v, torch.Tensor) and v.is_floating_point() else v, (args, kwargs))
        dtype = _conversion_dtype(func, args, kwargs)
        if dtype is not None and isinstance(args[0], torch.Tensor):
            rest = {k: v for k, v in kwargs.items() if k not in ("dtype", "copy", "non_blocking", "memory_format")}
            moved = args[0].to(**rest) if rest else args[0]  # a device move, say
            if not self.casts_round and dtype.is_floating_point and moved.is_floating_point():
                return moved.to(torch.float64)
            return _round(moved, dtype)
        asked = kwargs.get("dtype")
        if isinstance(asked, torch.dtype) and asked.is_floating_point and asked != torch.float64:
            out = func(*args, **{**kwargs, "dtype": torch.float64})
            return _round(out, asked) if _makes_a_constant(func, args, kwargs) else out  # a reduction's dtype= widens: exact in float64
        return func(*args, **kwargs)


def _fix_dtypes_taken_from_tensors(gm: torch.fx.GraphModule) -> None:
    """`x.to(other)` and `x.type_as(other)` take other's dtype when they run, float64 in the reference: each becomes
    `x.to(dtype)` with the dtype other had when Dynamo traced the model, so that the cast rounds."""
    changed = False
    for node in gm.graph.nodes:
        if node.op != "call_method" or node.target not in ("to", "type_as") or len(node.args) < 2 or not isinstance(node.args[1], torch.fx.Node):
            continue
        traced = node.args[1].meta.get("example_value")
        if isinstance(traced, torch.Tensor):
            node.target, node.args = "to", (node.args[0], traced.dtype)
            changed = True
    if changed:
        gm.recompile()


@functools.cache
def reference_call(op: str, attrs: tuple[tuple[str, Any], ...], arity: int) -> Callable:
    """The op table's float64 reference of `op` (`OpSpec.reference`) as a function of its tensor arguments, with the
    `program.exact` helpers it names: what numfuzz's own programs compute where torch's float64 kernel is not exact enough."""
    import torch.nn.functional as F

    names = [f"a{k}" for k in range(arity)]
    text = OPS[op].reference.format(*names, args=", ".join(names), **dict(attrs))
    namespace: dict[str, Any] = {"torch": torch, "F": F}
    for helper, source in HELPERS.items():
        if helper in text:
            exec(source, namespace)
    return eval(f"lambda {', '.join(names)}: {text}", namespace)


def by_reference(op: str, attrs: tuple[tuple[str, Any], ...], *tensors: torch.Tensor) -> Any:
    """What a captured call rewritten by `_op_references` calls (a function FX can name): `op`'s reference on `tensors`."""
    return reference_call(op, attrs, len(tensors))(*tensors)


def _op_references(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The graph with each captured call that is an op with its own float64 reference in the op table computing by that
    reference; a copy, so that the captured nodes stay as the model wrote them (for the op table's mapping)."""
    found = {node: mapped for node in gm.graph.nodes if isinstance(mapped := map_node(node), Mapped) and OPS[mapped.op].reference}
    if not found:
        return gm
    graph, copies = torch.fx.Graph(), {}
    graph.output(graph.graph_copy(gm.graph, copies))
    for node, mapped in found.items():
        copied = copies[node]
        copied.op, copied.target = "call_function", by_reference
        copied.args, copied.kwargs = (mapped.op, tuple(sorted(mapped.attrs.items())), *(copies[t] for t in mapped.tensors)), {}
    return torch.fx.GraphModule(gm, graph)


@dataclass
class Reference:
    """A Dynamo backend that runs each captured graph in float64 with the model's casts rounding (see the module)."""

    casts_round: bool = True
    grad: bool = False  # a training step: each float argument that requires a gradient gets a float64 leaf (`leaves`)
    graphs: int = 0  # graphs captured: more than one means a graph break
    nodes: list[torch.fx.Node] = field(default_factory=list)  # every captured call, for the op table's mapping
    leaves: dict[int, torch.Tensor] = field(default_factory=dict)  # id(the model's tensor) -> its float64 leaf, last call

    def leaf(self, value: Any) -> Any:
        """The float64 value a graph computes from: with gradients, a leaf that stands for the model's own tensor."""
        if not (isinstance(value, torch.Tensor) and value.is_floating_point()):
            return value
        if not (self.grad and value.requires_grad):
            return value.detach().to(torch.float64)
        leaf = value.detach().to(torch.float64).requires_grad_()
        self.leaves[id(value)] = leaf
        return leaf

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        self.graphs += 1
        self.nodes.extend(n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))
        _fix_dtypes_taken_from_tensors(gm)
        gm = _op_references(gm)
        if any(p.is_floating_point() for p in gm.parameters()):  # parameters Dynamo did not lift: the user's own, so copied
            gm = copy.deepcopy(gm).to(torch.float64)

        def run(*args: Any) -> Any:
            with torch.set_grad_enabled(self.grad), RoundAtCasts(self.casts_round):
                return gm(*[self.leaf(a) for a in args])

        return run


def float64_program(fn: Callable, casts_round: bool = True, grad: bool = False) -> tuple[Callable, Reference]:
    """`fn` as its float64 reference (outputs float64), compiled on its first call and kept for calls of the same shapes;
    and the capture's record. The caller resets Dynamo when done (`torch._dynamo.reset()`)."""
    import torch._dynamo

    backend = Reference(casts_round, grad)
    torch._dynamo.reset()
    return torch.compile(fn, backend=backend, dynamic=False), backend
