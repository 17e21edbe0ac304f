"""Constant tensors: a value's shape (or its last dim) filled with a constant of a drawn dtype.

Their values do not depend on their argument's, only its shape and device; a compiler may fold them
(pytorch#189799's add path folds `zeros_like`, pytorch#164484 needs `full`).
"""

from __future__ import annotations

import random

from numfuzz.program.dtypes import PROGRAM_DTYPES
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, scalar


def _draw_dtype(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"dtype": rng.choice(PROGRAM_DTYPES)}


def _draw_full(rng: random.Random, specs: list[TensorSpec]) -> dict:
    # moderate: a value past the constant's dtype makes eager raise
    return {**_draw_dtype(rng, specs), "value": scalar(rng, "moderate", specs[0])}


def _like(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(specs[0].shape, attrs["dtype"])


def _arange(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if not specs[0].shape:
        raise GraphError("arange takes its length from a last dim; got a 0-d value")
    return TensorSpec(specs[0].shape[-1:], attrs["dtype"])


# constants: exact values (a fill value rounded once to the dtype)
SPECS: list[OpSpec] = [
    OpSpec(
        "full_like",
        1,
        "unary",
        _like,
        draw_attrs=_draw_full,
        scalars=(("value", "moderate"),),
        weight=0.3,
        bound="correctly_rounded",
        call="torch.full_like({0}, {value!r}, dtype={dtype})",
        constant=True,
    ),
    OpSpec(
        "zeros_like",
        1,
        "unary",
        _like,
        draw_attrs=_draw_dtype,
        weight=0.3,
        bound="correctly_rounded",
        call="torch.zeros_like({0}, dtype={dtype})",
        constant=True,
    ),
    OpSpec(
        "ones_like", 1, "unary", _like, draw_attrs=_draw_dtype, weight=0.3, bound="correctly_rounded", call="torch.ones_like({0}, dtype={dtype})", constant=True
    ),
    OpSpec(
        "arange",
        1,
        "unary",
        _arange,
        draw_attrs=_draw_dtype,
        weight=0.3,
        bound="correctly_rounded",
        call="torch.arange({0}.shape[-1], dtype={dtype}, device={0}.device)",
        constant=True,
    ),
]
