"""A database op's node: its result's spec, inferred on meta tensors, and its call as source for eager, the reference and repros.

A node of a database op holds its form's call (`form`), with `{0}`, `{1}`, ... for its arguments,
and the float dtype `{dtype}` stands for (`dtype`). Its result's shape and dtype come from running
the call on meta tensors of its arguments' specs: whatever size the generator gives the arguments,
torch's own meta function says what comes out, or that the call does not take them (a GraphError).
A form without a meta function takes its sample's shapes only, and its result is the sample's.
The float64 reference writes `{dtype}` as float64. torch is imported only where a spec is inferred.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable

from numfuzz.program.dtypes import FLOAT_DTYPES, TORCH_DTYPES
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_db.entries import DatabaseOp, Form

# A database node's attributes: its form's call, the float dtype `{dtype}` stands for, and which of the op's forms the
# generator drew (`sample`, its index in the snapshot's list): one call has a form per dtype and per sample's shapes
FORM, DTYPE, SAMPLE = "form", "dtype", "sample"
CPU_CHECKED_ELEMENTS = 4096  # a call's shapes inferred on meta are checked on zeros on the CPU up to this many elements


def call_text(attrs: dict[str, Any], args: list[str], reference: bool) -> str:
    """The node's call with its arguments' names; in the reference, `{dtype}` is float64."""
    dtype = attrs.get(DTYPE)
    written = "torch.float64" if reference and dtype else TORCH_DTYPES[dtype] if dtype else "None"
    return str(attrs[FORM]).format(*args, dtype=written)


def inferrer(op: DatabaseOp) -> Callable[[list[TensorSpec], dict[str, Any]], TensorSpec]:
    """The op's shape rule: the call on meta tensors; for a form with no meta function, its sample's shapes only."""
    sampled: dict[str, list[Form]] = {}  # a call without a meta function -> its forms, one per sample's shapes
    for form in op.forms:
        sampled.setdefault(form.call, []).append(form)
    sampled = {call: forms for call, forms in sampled.items() if not any(f.meta for f in forms)}

    def infer(specs: list[TensorSpec], attrs: dict[str, Any]) -> TensorSpec:
        call = str(attrs.get(FORM, ""))
        if call in sampled:
            return _as_sampled(sampled[call], specs)
        key = tuple((s.shape, s.dtype) for s in specs)
        found = _on_meta(str(attrs.get(FORM, "")), str(attrs.get(DTYPE) or ""), key)
        if isinstance(found, str):
            raise GraphError(f"{op.name}: {found}")
        return TensorSpec(*found)

    return infer


def _as_sampled(forms: list[Form], specs: list[TensorSpec]) -> TensorSpec:
    """The result of the form whose sample had these shapes, and a float or integer first tensor as these."""
    shapes, integer = [s.shape for s in specs], bool(specs) and specs[0].dtype not in FLOAT_DTYPES
    fits = [f for f in forms if [a.shape for a in f.args] == shapes and f.integer == integer]
    # the sample of this very dtype where there is one: an integer result's dtype may be its own (bincount's int64)
    form = next((f for f in fits if specs and f.args[0].dtype == specs[0].dtype), fits[0] if fits else None)
    if form is None:
        raise GraphError(f"{forms[0].call} has no meta function: it takes its samples' shapes only")
    return TensorSpec(form.shape, specs[0].dtype if form.out == "same" else form.out)


@functools.lru_cache(maxsize=8192)
def _on_meta(call: str, dtype: str, specs: tuple[tuple[tuple[int, ...], str], ...]) -> tuple[tuple[int, ...], str] | str:
    """(shape, dtype) of the call's result on meta tensors of `specs`, or why it does not run."""
    import torch

    from numfuzz.program.values import dtype_name, torch_dtype

    try:
        fn = _compiled(call, len(specs), dtype)
        tensors = [torch.empty(shape, dtype=torch_dtype(name), device="meta") for shape, name in specs]
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a deprecated op's notice is the program's, not the generator's to print
            out = fn(*tensors)
    except Exception as exc:  # the call does not take these specs: the generator draws another
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"{type(exc).__name__}: {first[:160]}"
    if not isinstance(out, torch.Tensor):
        return f"its result is a {type(out).__name__}"
    checked = _on_cpu(fn, specs)
    if isinstance(checked, str):
        return checked
    out = checked if checked is not None else out
    try:
        return tuple(int(d) for d in out.shape), dtype_name(out.dtype)
    except ValueError as exc:
        return str(exc)


def _on_cpu(fn: Callable, specs: tuple[tuple[tuple[int, ...], str], ...]) -> Any:
    """The call on zeros of small `specs` on the CPU, as eager will run it: a meta function may accept a dim out of range
    (sort's) or give another shape (nansum's `dim=()` on torch 2.9); None where the specs are large or zeros are values
    the call refuses (a singular matrix), where meta's answer stands; why not, for a dim out of range."""
    import torch

    out = _on_zeros(fn, specs)
    if isinstance(out, IndexError):
        first = (str(out).strip().splitlines() or ["IndexError"])[0]
        return f"IndexError: {first[:160]}" if "out of range" in first else None
    return out if isinstance(out, torch.Tensor) else None  # an exception: zeros are values the call refuses


@functools.lru_cache(maxsize=4096)
def eager_refuses(call: str, dtype: str, specs: tuple[tuple[tuple[int, ...], str], ...]) -> bool:
    """Does eager raise on zeros of these small `specs` (a dtype its kernel lacks, a check), whatever meta says?"""
    return isinstance(_on_zeros(_compiled(call, len(specs), dtype), specs), Exception)


def _on_zeros(fn: Callable, specs: tuple[tuple[tuple[int, ...], str], ...]) -> Any:
    """`fn` on zeros of `specs` on the CPU, as eager runs it: its result, or the exception it raised; None where the
    specs are larger than CPU_CHECKED_ELEMENTS (not run)."""
    import torch

    from numfuzz.program.values import torch_dtype

    if sum(math.prod(shape) for shape, _ in specs) > CPU_CHECKED_ELEMENTS:
        return None
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*[torch.zeros(shape, dtype=torch_dtype(name)) for shape, name in specs])
    except Exception as exc:
        return exc


@functools.lru_cache(maxsize=4096)
def _compiled(call: str, arity: int, dtype: str) -> Callable:
    import torch
    import torch.nn.functional as F

    names = [f"a{k}" for k in range(arity)]
    source = f"lambda {', '.join(names)}: " + call.format(*names, dtype=TORCH_DTYPES[dtype] if dtype else "None")
    return eval(source, {"torch": torch, "F": F})  # noqa: S307 - a form's call, from the database's sample as written


def missing_here(op: DatabaseOp) -> str:
    """Why this torch cannot call the op ("" where it can): the snapshot was read on another torch."""
    import torch

    if op.call.startswith("lambda"):  # a database's lambda: its forms name the functions they call
        return ""
    owner, _, name = op.call.rpartition(".")
    found: Any = torch.Tensor if owner == "Tensor" else torch
    for part in ([] if owner == "Tensor" else owner.split(".")[1:]) + [name]:
        found = getattr(found, part, None)
        if found is None:
            return f"not in torch {torch.__version__}"
    return ""
