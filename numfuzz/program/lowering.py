"""Graph -> Python source of a plain `def fn(...)` using public torch calls.

The same text runs in numfuzz and goes into repro scripts. With `reference=True` the
function computes in float64, and each explicit cast rounds to its dtype and then
continues in float64, so that a compiler that drops a cast cannot hide behind it.
"""

from __future__ import annotations

import itertools
import linecache
from typing import Any, Callable

from numfuzz.program.autocast import has_regions, region, rounded_args
from numfuzz.program.dtypes import TORCH_DTYPES
from numfuzz.program.exact import HELPERS
from numfuzz.program.ir import Graph, Node
from numfuzz.program.ops import infer_specs, lookup
from numfuzz.program.scalars import param_name, parameters, passed

# Each op's call, as a template over argument names ({0}, {1}, ..., {args}) and attributes.
CALLS = {
    "neg": "torch.neg({0})", "abs": "torch.abs({0})", "exp": "torch.exp({0})", "expm1": "torch.expm1({0})",
    "log": "torch.log({0})", "log1p": "torch.log1p({0})", "sqrt": "torch.sqrt({0})", "rsqrt": "torch.rsqrt({0})",
    "reciprocal": "torch.reciprocal({0})", "sin": "torch.sin({0})", "cos": "torch.cos({0})",
    "tanh": "torch.tanh({0})", "sigmoid": "torch.sigmoid({0})", "silu": "F.silu({0})", "relu": "torch.relu({0})",
    "softplus": "F.softplus({0})", "erf": "torch.erf({0})", "gelu": "F.gelu({0}, approximate={approximate!r})",
    "pow_scalar": "torch.pow({0}, {exponent!r})", "mul_scalar": "{0} * {value!r}", "add_scalar": "{0} + {value!r}",
    "add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}",
    "maximum": "torch.maximum({0}, {1})", "minimum": "torch.minimum({0}, {1})", "pow": "torch.pow({0}, {1})",
    "where": "torch.where({0} > 0, {1}, {2})", "lerp": "torch.lerp({0}, {1}, {2})",
    "addcmul": "torch.addcmul({0}, {1}, {2}, value={value!r})",
    "cat": "torch.cat(({0}, {1}), dim={dim})", "reshape": "{0}.reshape({shape!r})", "permute": "{0}.permute({perm!r})",
    "transpose": "{0}.transpose({dim0}, {dim1})", "unsqueeze": "{0}.unsqueeze({dim})", "expand": "{0}.expand({shape!r})",
    "chunk": "torch.chunk({0}, {chunks}, dim={dim})[{index}]",
    "sum": "torch.sum({0}, dim={dim}, keepdim={keepdim})", "mean": "torch.mean({0}, dim={dim}, keepdim={keepdim})",
    "amax": "torch.amax({0}, dim={dim}, keepdim={keepdim})",
    "var": "torch.var({0}, dim={dim}, correction={correction}, keepdim={keepdim})",
    "softmax": "torch.softmax({0}, dim={dim})", "log_softmax": "torch.log_softmax({0}, dim={dim})",
    "layer_norm": "F.layer_norm({0}, {0}.shape[-1:], eps={eps!r})", "rms_norm": "F.rms_norm({0}, {0}.shape[-1:], eps={eps!r})",
    "linear": "F.linear({args})", "matmul": "torch.matmul({0}, {1})",
    # unary, added with the table's second half
    "tan": "torch.tan({0})", "asin": "torch.asin({0})", "acos": "torch.acos({0})", "atan": "torch.atan({0})",
    "sinh": "torch.sinh({0})", "cosh": "torch.cosh({0})", "asinh": "torch.asinh({0})", "acosh": "torch.acosh({0})",
    "atanh": "torch.atanh({0})", "exp2": "torch.exp2({0})", "log2": "torch.log2({0})", "log10": "torch.log10({0})",
    "erfc": "torch.erfc({0})", "erfinv": "torch.erfinv({0})", "lgamma": "torch.lgamma({0})",
    "digamma": "torch.digamma({0})", "sign": "torch.sign({0})", "floor": "torch.floor({0})", "ceil": "torch.ceil({0})",
    "round": "torch.round({0}, decimals={decimals})", "trunc": "torch.trunc({0})", "frac": "torch.frac({0})",
    "square": "torch.square({0})", "sinc": "torch.sinc({0})", "logit": "torch.logit({0})",
    "nan_to_num": "torch.nan_to_num({0}, nan={nan!r}, posinf={posinf!r}, neginf={neginf!r})",
    "clamp_scalar": "torch.clamp({0}, min={min!r}, max={max!r})", "elu": "F.elu({0}, alpha={alpha!r})",
    "selu": "F.selu({0})", "celu": "F.celu({0}, alpha={alpha!r})",
    "leaky_relu": "F.leaky_relu({0}, negative_slope={negative_slope!r})", "hardswish": "F.hardswish({0})",
    "hardsigmoid": "F.hardsigmoid({0})", "mish": "F.mish({0})", "softsign": "F.softsign({0})",
    "tanhshrink": "F.tanhshrink({0})",
    "hardtanh": "F.hardtanh({0}, min_val={min_val!r}, max_val={max_val!r})", "threshold": "F.threshold({0}, {threshold!r}, {value!r})",
    "relu6": "F.relu6({0})", "hardshrink": "F.hardshrink({0}, lambd={lambd!r})", "softshrink": "F.softshrink({0}, lambd={lambd!r})",
    # a tensor against a Python scalar
    "eq_scalar_cast": "({0} == {value!r}).to({0}.dtype)", "lt_scalar_where": "torch.where({0} < {value!r}, {0}, {1})",
    "ge_scalar_count": "torch.sum({0} >= {value!r}, dim={dim}, keepdim={keepdim}).to({0}.dtype)",
    # constant tensors (their dtype written as torch's: `_call`)
    "full_like": "torch.full_like({0}, {value!r}, dtype={dtype})", "zeros_like": "torch.zeros_like({0}, dtype={dtype})",
    "ones_like": "torch.ones_like({0}, dtype={dtype})", "arange": "torch.arange({0}.shape[-1], dtype={dtype}, device={0}.device)",
    # binary and comparisons
    "atan2": "torch.atan2({0}, {1})", "hypot": "torch.hypot({0}, {1})", "logaddexp": "torch.logaddexp({0}, {1})",
    "logaddexp2": "torch.logaddexp2({0}, {1})", "xlogy": "torch.xlogy({0}, {1})", "fmod": "torch.fmod({0}, {1})",
    "remainder": "torch.remainder({0}, {1})", "copysign": "torch.copysign({0}, {1})",
    "div_trunc": "torch.div({0}, {1}, rounding_mode='trunc')", "div_floor": "torch.div({0}, {1}, rounding_mode='floor')",
    "clamp_tensor": "torch.clamp({0}, {1}, {2})", "where_lt": "torch.where({0} < {1}, {2}, {3})",
    "isfinite_where": "torch.where(torch.isfinite({0}), {0}, {1})", "mul_mask_gt": "{0} * ({0} > {1}).to({0}.dtype)",
    "count_ge": "torch.sum({0} >= {1}, dim={dim}, keepdim={keepdim}).to(torch.promote_types({0}.dtype, {1}.dtype))",
    # reductions, scans, norms
    "prod": "torch.prod({0}, dim={dim}, keepdim={keepdim})", "amin": "torch.amin({0}, dim={dim}, keepdim={keepdim})",
    "logsumexp": "torch.logsumexp({0}, dim={dim}, keepdim={keepdim})",
    "std": "torch.std({0}, dim={dim}, correction={correction}, keepdim={keepdim})",
    "var_mean": "torch.var_mean({0}, dim={dim}, correction={correction}, keepdim={keepdim})[{which}]",
    "vector_norm": "torch.linalg.vector_norm({0}, ord=float({ord!r}), dim={dim}, keepdim={keepdim})",
    "cumsum": "torch.cumsum({0}, dim={dim})", "cumprod": "torch.cumprod({0}, dim={dim})",
    "logcumsumexp": "torch.logcumsumexp({0}, dim={dim})", "group_norm": "F.group_norm({0}, {num_groups}, eps={eps!r})",
    "batch_norm": "F.batch_norm({0}, {1}, {2}, {3}, {4}, training=False, eps={eps!r})",
    # linear algebra
    "bmm": "torch.bmm({0}, {1})", "baddbmm": "torch.baddbmm({2}, {0}, {1}, beta={beta!r}, alpha={alpha!r})",
    "addmm": "torch.addmm({2}, {0}, {1}, beta={beta!r}, alpha={alpha!r})", "einsum": "torch.einsum({equation!r}, {0}, {1})",
    "sdpa": "F.scaled_dot_product_attention({0}, {1}, {2}, is_causal={is_causal})",
    # losses
    "mse_loss": "F.mse_loss({0}, {1}, reduction={reduction!r})",
    "smooth_l1_loss": "F.smooth_l1_loss({0}, {1}, reduction={reduction!r}, beta={beta!r})",
    "huber_loss": "F.huber_loss({0}, {1}, reduction={reduction!r}, delta={delta!r})",
    "kl_div": "F.kl_div({0}, {1}, reduction={reduction!r})",
    "bce_with_logits": "F.binary_cross_entropy_with_logits({0}, {1}, reduction={reduction!r})",
    "margin_ranking_loss": "F.margin_ranking_loss({0}, {1}, {2}, margin={margin!r}, reduction={reduction!r})",
    "soft_margin_loss": "F.soft_margin_loss({0}, {1}, reduction={reduction!r})",
    "cross_entropy": "F.cross_entropy({0}, {1}, reduction={reduction!r}, label_smoothing={label_smoothing!r})",
    # integer inputs: class targets and indices
    "nll_loss": "F.nll_loss({0}, {1}, reduction={reduction!r}, ignore_index={ignore_index})",
    "cross_entropy_index": "F.cross_entropy({0}, {1}, reduction={reduction!r}, label_smoothing={label_smoothing!r}, ignore_index={ignore_index})",
    "gather": "torch.gather({0}, {dim}, {1})", "index_select": "torch.index_select({0}, {dim}, {1})",
    "embedding": "F.embedding({1}, {0})",
}  # fmt: skip

# Where the float64 reference calls a helper of `numfuzz.program.exact` instead (why: there).
REFERENCE_CALLS = {
    "sinc": "sinc_exact({0})", "digamma": "digamma_exact({0})", "tanhshrink": "tanhshrink_exact({0})",
    "bce_with_logits": "bce_logits_exact({0}, {1}, {reduction!r})",
    "soft_margin_loss": "soft_margin_exact({0}, {1}, {reduction!r})",
    # The reference may be handed every input as float64: the indices go back to int64 (exactly, they are small).
    "nll_loss": "F.nll_loss({0}, {1}.long(), reduction={reduction!r}, ignore_index={ignore_index})",
    "cross_entropy_index": "F.cross_entropy({0}, {1}.long(), reduction={reduction!r}, label_smoothing={label_smoothing!r}, ignore_index={ignore_index})",
    "gather": "torch.gather({0}, {dim}, {1}.long())", "index_select": "torch.index_select({0}, {dim}, {1}.long())",
    "embedding": "F.embedding({1}.long(), {0})",
}  # fmt: skip


class _Param(str):
    """A passed scalar in a call template: `{min!r}` writes its parameter's name, not a value."""

    def __repr__(self) -> str:
        return str(self)


# Constant tensors: their dtype attribute is written as torch's, and the reference takes the
# constant as eager makes it (in its dtype), then computes on in float64.
CONSTANTS = ("full_like", "zeros_like", "ones_like", "arange")


def _call(node: Node, args: list[str], reference: bool, exact: bool = False, source_dtype: str | None = None, position: int = 0) -> str:
    a = node.attr_dict
    a.update({name: _Param(param_name(position, name)) for name, _ in passed(node)})
    if node.op in CONSTANTS:
        a["dtype"] = TORCH_DTYPES[a["dtype"]]
        text = CALLS[node.op].format(*args, **a)
        return f"{text}.to(torch.float64)" if reference else text
    if node.op == "cast":
        target = TORCH_DTYPES[a["dtype"]]
        if reference and source_dtype is not None and not exact:  # gradients: rounded back through the cast as eager's are
            return f"rounded_cast({args[0]}, {target}, {TORCH_DTYPES[source_dtype]})"
        if reference:
            return args[0] if exact else f"round_to({args[0]}, {target}).to(torch.float64)"
        return f"{args[0]}.to({target})"
    if node.op == "slice":  # dim is non-negative: the op table insists
        return f"{args[0]}[{':, ' * a['dim']}{_slice_text(a)}]"
    if node.op not in CALLS:
        lookup(node.op)  # raises for an unknown op
        raise NotImplementedError(f"no lowering for op {node.op!r}")
    template = REFERENCE_CALLS.get(node.op, CALLS[node.op]) if reference else CALLS[node.op]
    return template.format(*args, args=", ".join(args), **a)


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
    return sorted({name for n in graph.nodes if n.op in REFERENCE_CALLS and (name := REFERENCE_CALLS[n.op].split("(")[0]) in HELPERS})


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
    at `exact_casts` (node positions) round nothing in the reference: the program as if a
    compiler had dropped them; so do autocast's casts of the arguments of a node there. `grad` (with `reference`): casts also round the gradient that
    flows back through them, as eager's autograd does. `defaults` False: the passed scalars' values
    are left out of the signature (two calls of one program with other scalars have one source then).
    """
    names = value_names(graph)
    params = signature(graph, defaults)
    regions = has_regions(graph)
    has_casts = reference and (regions or any(n.op == "cast" for n in graph.nodes))
    lines = [ROUND_TO_SOURCE, ""] if has_casts else []
    if has_casts and grad:
        lines += [ROUNDED_CAST_SOURCE, ""]
    if reference:
        lines += [HELPERS[h] for h in reference_helpers(graph)]
    specs = infer_specs(graph) if has_casts and (grad or regions) else None
    lines.append(f"def {fn_name}({params}):")
    open_region = None
    for j, node in enumerate(graph.nodes):
        args = [names[a] for a in node.args]
        if reference and regions and j not in exact_casts:
            args = _autocast_rounded(node, args, specs, grad)
        source = specs[node.args[0]].dtype if grad and specs is not None and node.op == "cast" else None
        line = f"{names[len(graph.inputs) + j]} = {_call(node, args, reference, j in exact_casts, source, j)}"
        dtype = None if reference else region(node)  # float64 is outside autocast's reach: the reference rounds instead
        if dtype is not None and dtype != open_region:  # a run of nodes in one region is one block, as a user writes it
            lines.append(f"    with torch.autocast({names[0]}.device.type, dtype={TORCH_DTYPES[dtype]}):")
        open_region = dtype
        lines.append(f"    {'    ' if dtype else ''}{line}")
    outs = ", ".join(names[o] for o in graph.outputs)
    lines.append(f"    return ({outs},)")
    return "\n".join(lines) + "\n"


def _autocast_rounded(node: Node, args: list[str], specs: list | None, grad: bool) -> list[str]:
    """The reference's arguments of a node in an autocast region: rounded where autocast casts them down, as an explicit cast is."""
    args = list(args)
    for i, dtype, own in rounded_args(node, specs or [], lookup(node.op).autocast):
        target = TORCH_DTYPES[dtype]
        args[i] = f"rounded_cast({args[i]}, {target}, {TORCH_DTYPES[own]})" if grad else f"round_to({args[i]}, {target}).to(torch.float64)"
    return args


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
