"""One sample input of an upstream op database as a form numfuzz can call: the call's source, and what each tensor is.

A sample (`SampleInput`: an input, positional args, keywords) becomes the text of a public torch
call with a placeholder for each tensor, `torch.clamp({0}, min=-0.5, max={1})` (a list of tensors as a list of
placeholders, `torch.cat([{0}, {1}], dim=1)`), and a description of
each tensor: its shape in the sample and its kind. numfuzz draws the tensors' values, layouts and
dtype itself; the rest of the call (dims, Python scalars, strings, integer dtypes) stays as upstream's
test wrote it. A float `dtype=` that names the input's own dtype is `{dtype}`, the program's dtype.
A value numfuzz cannot write as source (a callable, a generator, a device, a complex number) makes
the sample unusable, and says why. Needs torch; run by `scripts/op_db_snapshot` only.
"""

from __future__ import annotations

import ast
import inspect
import math
from dataclasses import dataclass, field
from typing import Any

import torch

# numfuzz's names of the dtypes a form may take (`program.dtypes`)
DTYPE_NAMES = {
    torch.float32: "fp32",
    torch.float64: "fp64",
    torch.bfloat16: "bf16",
    torch.float16: "fp16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.bool: "bool",
}
FLOATS = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
MAX_ELEMENTS = 4096  # a tensor of a sample past this is too large for numfuzz's small cases


class Unusable(ValueError):
    """A sample numfuzz cannot call as a program: the message says why, in a few words."""


@dataclass
class Written:
    """A sample's call as source, its tensors in placeholder order, and each one's kind."""

    call: str
    tensors: list[torch.Tensor] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # "value" (the first, and floats), "mask" (bool), "int" (values or positions)
    dtype_placeholder: bool = False  # a float dtype= names the first tensor's own dtype: `{dtype}`


def write_call(path: str, method: bool, sample: Any, index: int | None = None) -> Written:
    """The source of `path`(sample) (or `{0}.path(...)` for a method), `[index]` of a tuple result; Unusable where it cannot be written."""
    written = Written("")
    first = _value(sample.input, written, first=True)
    args = [_value(a, written) for a in sample.args]
    kwargs = [f"{k}={_value(v, written)}" for k, v in sample.kwargs.items()]
    if not written.tensors or not (isinstance(sample.input, torch.Tensor) or _tensors(sample.input)):
        raise Unusable("its first argument is no tensor")
    inner = ", ".join(args + kwargs)
    if method and not isinstance(sample.input, torch.Tensor):
        raise Unusable("its method is called on a list of tensors")
    if method:
        call = f"{first}.{path}({inner})"
    else:
        call = f"{path}({', '.join([first, *args, *kwargs])})"
    written.call = call if index is None else f"{call}[{index}]"
    return written


def _tensors(value: Any) -> bool:
    """Is `value` a list or tuple of tensors (cat's and stack's first argument)?"""
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, torch.Tensor) for v in value)


def _value(value: Any, written: Written, first: bool = False) -> str:
    """One argument as source; a tensor (or a list of them: cat's, stack's) as placeholders, recorded in `written`."""
    if isinstance(value, torch.Tensor):
        return _tensor(value, written, first)
    if _tensors(value):
        text = ", ".join(_tensor(v, written, first and k == 0) for k, v in enumerate(value))
        return f"[{text}]" if isinstance(value, list) else f"({text},)"
    if isinstance(value, torch.dtype):
        if value in FLOATS and written.tensors and value == written.tensors[0].dtype:
            written.dtype_placeholder = True
            return "{dtype}"
        if value not in DTYPE_NAMES:
            raise Unusable(f"it takes dtype {value}")
        return f"torch.{str(value).removeprefix('torch.')}"
    if isinstance(value, torch.memory_format):
        return f"torch.{str(value).removeprefix('torch.')}"
    if isinstance(value, torch.Size):
        return repr(tuple(value))
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float('{value}')"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_value(v, written) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, slice):
        raise Unusable("it takes a slice object")
    if isinstance(value, complex):
        raise Unusable("it takes a complex number")
    raise Unusable(f"it takes a {type(value).__name__}")


def _tensor(value: torch.Tensor, written: Written, first: bool) -> str:
    if value.is_complex():
        raise Unusable("it takes complex tensors")
    if value.layout != torch.strided:
        raise Unusable(f"it takes {value.layout} tensors")
    if value.dtype not in DTYPE_NAMES:
        raise Unusable(f"it takes {value.dtype} tensors")
    if value.numel() > MAX_ELEMENTS:
        raise Unusable(f"a tensor of {value.numel()} elements is too large at small sizes")
    placeholder = f"{{{len(written.tensors)}}}"
    written.tensors.append(value)
    # the first tensor and every float one are values; an integer one may be values or positions (`reading` tries which)
    written.kinds.append("value" if first or value.dtype in FLOATS else "mask" if value.dtype == torch.bool else "int")
    return placeholder


def lambda_of(function: Any) -> ast.Lambda | None:
    """The lambda a database entry calls, parsed from its source (`op=lambda x, n: torch.special.polygamma(n, x)`); None for any other function."""
    if getattr(function, "__name__", "") != "<lambda>":
        return None
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    start = source.find("lambda")
    for end in range(len(source), start, -1):  # the lambda ends where its text parses
        try:
            tree = ast.parse(source[start:end].strip().rstrip(","), mode="eval")
        except SyntaxError:
            continue
        return tree.body if isinstance(tree.body, ast.Lambda) else None
    return None


def write_lambda(lam: ast.Lambda, sample: Any, index: int | None = None) -> Written:
    """A lambda's body as the call, its parameters replaced by the sample's values (a method variant's, a reordering's)."""
    written = Written("")
    names = [a.arg for a in lam.args.args]
    given = [sample.input, *sample.args]
    values = {name: _value(v, written, first=k == 0) for k, (name, v) in enumerate(zip(names, given))}
    rest = [_value(v, written) for v in given[len(names) :]]
    if rest and lam.args.vararg is None:
        raise Unusable("its lambda takes fewer arguments than its sample gives")
    keywords = {k: _value(v, written) for k, v in sample.kwargs.items() if k not in names}
    values.update({k: _value(v, written) for k, v in sample.kwargs.items() if k in names})
    if keywords and lam.args.kwarg is None:
        raise Unusable("its lambda takes no keywords its sample gives")
    substitute = _Substitute(values, lam.args.vararg.arg if lam.args.vararg else "", rest, lam.args.kwarg.arg if lam.args.kwarg else "", keywords)
    text = ast.unparse(substitute.visit(lam.body))
    for key, value in substitute.texts.items():
        text = text.replace(key, value)
    if not written.tensors:
        raise Unusable("its first argument is no tensor")
    written.call = text if index is None else f"({text})[{index}]"
    return written


class _Substitute(ast.NodeTransformer):
    """Names of the lambda's parameters replaced by the values' source (through stand-in names, swapped after unparsing)."""

    def __init__(self, values: dict[str, str], vararg: str, rest: list[str], kwarg: str, keywords: dict[str, str]):
        self.values, self.vararg, self.rest, self.kwarg, self.keywords = values, vararg, rest, kwarg, keywords
        self.texts: dict[str, str] = {}

    def _stand_in(self, text: str) -> ast.Name:
        key = f"__numfuzz_value_{len(self.texts)}__"
        self.texts[key] = text
        return ast.Name(id=key, ctx=ast.Load())

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.values:
            return self._stand_in(self.values[node.id])
        if node.id != "torch":
            raise Unusable(f"its lambda calls {node.id}, a helper of the test suite")
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        args: list[ast.expr] = []
        for a in node.args:
            if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == self.vararg:
                args += [self._stand_in(t) for t in self.rest]
            else:
                args.append(self.visit(a))
        keywords: list[ast.keyword] = []
        for k in node.keywords:
            if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == self.kwarg:
                keywords += [ast.keyword(arg=name, value=self._stand_in(t)) for name, t in self.keywords.items()]
            else:
                keywords.append(ast.keyword(arg=k.arg, value=self.visit(k.value)))
        return ast.Call(func=self.visit(node.func), args=args, keywords=keywords)
