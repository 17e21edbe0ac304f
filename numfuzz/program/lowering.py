"""Graph -> Python source of a plain `def fn(...)` using public torch calls.

The same text runs in numfuzz and goes into repro scripts. With `reference=True` the
function computes in float64, and each explicit cast rounds to its dtype and then
continues in float64, so that a compiler that drops a cast cannot hide behind it.
"""

from __future__ import annotations

import functools
import itertools
import linecache
from typing import Any, Callable

from numfuzz.program.autocast import has_regions, region, rounded_args
from numfuzz.program.dtypes import TORCH_DTYPES
from numfuzz.program.exact import HELPERS
from numfuzz.program.ir import Graph, Node
from numfuzz.program.ops import infer_specs, lookup
from numfuzz.program.scalars import param_name, parameters, passed


class _Param(str):
    """A passed scalar in a call template: `{min!r}` writes its parameter's name, not a value."""

    def __repr__(self) -> str:
        return str(self)


def _call(node: Node, args: list[str], reference: bool, exact: bool = False, source_dtype: str | None = None, position: int = 0) -> str:
    spec = lookup(node.op)  # raises for an unknown op
    a = node.attr_dict
    a.update({name: _Param(param_name(position, name)) for name, _ in passed(node)})
    if spec.lower is not None:  # the node holds its own call (a database op's form)
        return spec.lower(a, args, reference)
    if spec.constant:  # the reference takes the constant as eager makes it (in its dtype), then computes on in float64
        a["dtype"] = "torch.float64" if reference and exact else TORCH_DTYPES[a["dtype"]]  # exact: its value unrounded
        text = spec.call.format(*args, **a)
        return f"{text}.to(torch.float64)" if reference else text
    if node.op == "cast":
        target = TORCH_DTYPES[a["dtype"]]
        if reference:
            return args[0] if exact else _rounded(args[0], target, source_dtype)
        return f"{args[0]}.to({target})"
    if spec.computes_in:  # the op casts its first argument to the dtype it computes in; the reference rounds it there
        target = TORCH_DTYPES[a[spec.computes_in]]
        a[spec.computes_in] = "torch.float64" if reference else target
        if reference and not exact:
            args = [_rounded(args[0], target, source_dtype), *args[1:]]
    if node.op == "slice":  # dim is non-negative: the op table insists
        return f"{args[0]}[{':, ' * a['dim']}{_slice_text(a)}]"
    if not spec.call:
        raise NotImplementedError(f"no lowering for op {node.op!r}")
    template = (spec.reference or spec.call) if reference else spec.call
    return template.format(*args, args=", ".join(args), **a)


def _rounded(arg: str, target: str, source_dtype: str | None) -> str:
    """The reference's value of `arg` cast to `target`: rounded once; with gradients (`source_dtype` given), rounded back
    through the cast as eager's are."""
    if source_dtype is not None:
        return f"rounded_cast({arg}, {target}, {TORCH_DTYPES[source_dtype]})"
    return f"round_to({arg}, {target}).to(torch.float64)"


def _slice_text(a: dict[str, Any]) -> str:
    step = f":{a['step']}" if a["step"] != 1 else ""
    return f"{a['start']}:{a['stop']}{step}"


# torch rounds float64 to bf16/fp16 through fp32, twice; the reference must round once.
# Rounding to fp32 by round-to-odd first makes the second rounding exact.
ROUND_TO_SOURCE = """\
def round_to(x, dtype):
    \"\"\"Correctly rounded float64 -> dtype (one rounding, to nearest even).\"\"\"
    if dtype in (torch.float32, torch.float64):
        return x.to(dtype)
    f = x.to(torch.float32)
    toward_zero = torch.where(f.double().abs() > x.abs(), torch.nextafter(f, torch.zeros_like(f)), f)
    odd = (toward_zero.view(torch.int32) | 1).view(torch.float32)
    return torch.where((f.double() != x) & torch.isfinite(f), odd, f).to(dtype)
"""


def round_once(x: Any, dtype: Any) -> Any:
    """`ROUND_TO_SOURCE`'s `round_to`, callable here: a float64 tensor rounded once to `dtype` (a torch dtype)."""
    return _defined(ROUND_TO_SOURCE, "round_to")(x, dtype)


# In eager, `y = x.to(B)` for x of dtype A sends back y's gradient, of dtype B, cast to A. The
# reference for gradients does that in float64 at every explicit cast, and rounds nowhere else.
ROUNDED_CAST_SOURCE = """\
class RoundedCast(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dtype, source):
        ctx.dtype, ctx.source = dtype, source
        return round_to(x, dtype).to(torch.float64)

    @staticmethod
    def backward(ctx, grad):
        return round_to(round_to(grad, ctx.dtype).to(torch.float64), ctx.source).to(torch.float64), None, None


def rounded_cast(x, dtype, source):
    return RoundedCast.apply(x, dtype, source)
"""


def reference_helpers(graph: Graph) -> list[str]:
    """The names of the `exact` helpers the graph's reference calls, in a stable order."""
    return sorted({name for n in graph.nodes if (name := lookup(n.op).reference.split("(")[0]) in HELPERS})


def value_names(graph: Graph) -> list[str]:
    return [f"x{i}" for i in range(len(graph.inputs))] + [f"t{j}" for j in range(len(graph.nodes))]


def signature(graph: Graph, defaults: bool = True) -> str:
    """The lowered function's parameters: the inputs, then each passed scalar (`numfuzz.program.scalars`),
    with its value as the default so that a caller handing over tensors only runs the program as stated."""
    names = value_names(graph)[: len(graph.inputs)]
    names += [f"{name}={value!r}" if defaults else name for name, value in parameters(graph)]
    return ", ".join(names)


def lower(
    graph: Graph, fn_name: str = "fn", reference: bool = False, exact_casts: frozenset[int] = frozenset(), grad: bool = False, defaults: bool = True
) -> str:
    """Python source for the graph; needs `torch` and `F` (torch.nn.functional) in scope.

    The reference source carries its own `round_to` helper when the graph has casts, and the
    `exact` helpers its ops need (so that a repro script needs nothing torch does not bring). The casts
    at `exact_casts` (node positions; and the cast of an op that computes in a dtype) round nothing in the reference: the program as if a
    compiler had dropped them; so do autocast's casts of the arguments of a node there. `grad` (with `reference`): casts also round the gradient that
    flows back through them, as eager's autograd does. `defaults` False: the passed scalars' values
    are left out of the signature (two calls of one program with other scalars have one source then).
    """
    names = value_names(graph)
    params = signature(graph, defaults)
    regions = has_regions(graph)
    has_casts = reference and (regions or any(n.op == "cast" or lookup(n.op).computes_in for n in graph.nodes))
    lines = [ROUND_TO_SOURCE, ""] if has_casts else []
    if has_casts and grad:
        lines += [ROUNDED_CAST_SOURCE, ""]
    if reference:
        lines += [HELPERS[h] for h in reference_helpers(graph)]
    specs = infer_specs(graph) if has_casts and (grad or regions) else None
    lines.append(f"def {fn_name}({params}):")
    start = len(lines)
    open_region = None
    for j, node in enumerate(graph.nodes):
        args = [names[a] for a in node.args]
        if reference and regions and j not in exact_casts:
            args = _autocast_rounded(node, args, specs, grad)
        source = specs[node.args[0]].dtype if grad and specs is not None and (node.op == "cast" or lookup(node.op).computes_in) else None
        line = f"{names[len(graph.inputs) + j]} = {_call(node, args, reference, j in exact_casts, source, j)}"
        dtype = None if reference else region(node)  # float64 is outside autocast's reach: the reference rounds instead
        if dtype is not None and dtype != open_region:  # a run of nodes in one region is one block, as a user writes it
            lines.append(f"    with torch.autocast({names[0]}.device.type, dtype={TORCH_DTYPES[dtype]}):")
        open_region = dtype
        lines.append(f"    {'    ' if dtype else ''}{line}")
    outs = ", ".join(names[o] for o in graph.outputs)
    lines.append(f"    return ({outs},)")
    if reference and any(lookup(n.op).lower is not None for n in graph.nodes):
        lines[start:] = _in_float64_default(lines[start:])
    return "\n".join(lines) + "\n"


def _in_float64_default(body: list[str]) -> list[str]:
    """The reference's body with torch's default dtype float64: a database op that makes floats of integers (a true
    division, a mean of counts) makes them in the default dtype, which in the reference is float64."""
    return [
        "    previous = torch.get_default_dtype()",
        "    torch.set_default_dtype(torch.float64)",
        "    try:",
        *[f"    {line}" for line in body],
        "    finally:",
        "        torch.set_default_dtype(previous)",
    ]


def _autocast_rounded(node: Node, args: list[str], specs: list | None, grad: bool) -> list[str]:
    """The reference's arguments of a node in an autocast region: rounded where autocast casts them down, as an explicit cast is."""
    args = list(args)
    for i, dtype, own in rounded_args(node, specs or [], lookup(node.op).autocast_for(node.attr_dict)):
        target = TORCH_DTYPES[dtype]
        args[i] = f"rounded_cast({args[i]}, {target}, {TORCH_DTYPES[own]})" if grad else f"round_to({args[i]}, {target}).to(torch.float64)"
    return args


@functools.cache
def _defined(source: str, name: str) -> Callable:
    import torch  # here: the program stage imports torch only where it runs code

    namespace: dict[str, Any] = {"torch": torch}
    exec(source, namespace)
    return namespace[name]


_counter = itertools.count()


def compile_source(source: str, fn_name: str = "fn") -> Callable:
    """Turn lowered source into a function, registered with linecache so tracers can read it."""
    import torch
    import torch.nn.functional as F

    filename = f"<numfuzz-graph-{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"torch": torch, "F": F}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[fn_name]
