"""Unary elementwise ops: one tensor in, one of its shape and dtype out."""

from __future__ import annotations

import random

from numfuzz.program.ir import TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_choice, draw_scalar, same


def _draw_exponent(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"exponent": rng.choice([0.5, 1.7, 2.0, 3.0, -1.0, -0.5, 2.5])}


def _draw_clamp(rng: random.Random, specs: list[TensorSpec]) -> dict:
    low, high = rng.choice([(-1.0, 1.0), (0.0, 6.0), (-0.5, None), (None, 0.25), (1e-3, 100.0)])
    return {"min": low, "max": high}


def _draw_nan_to_num(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"nan": rng.choice([0.0, 1.0]), "posinf": rng.choice([None, 100.0]), "neginf": rng.choice([None, -100.0])}


_ANY = ["neg", "abs", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "relu", "softplus", "erf"]
_POSITIVE = ["log", "log1p", "sqrt", "rsqrt", "reciprocal"]
# Added with the table's second half; lgamma and digamma take any value (their poles give a
# non-finite reference, and such elements are left out).
_NEW_ANY = ["tan", "atan", "sinh", "cosh", "asinh", "exp2", "erfc", "lgamma", "digamma", "square", "sinc",
            "selu", "hardswish", "hardsigmoid", "mish", "softsign", "tanhshrink"]  # fmt: skip
_NEW_DOMAINS = {"asin": "unit", "acos": "unit", "atanh": "unit", "erfinv": "unit", "acosh": "above_one",
                "log2": "positive", "log10": "positive", "logit": "probability"}  # fmt: skip
# Piecewise constant or exact: a finding needs a rounding upstream to cross a step, so fewer.
_STEPS = ["sign", "floor", "ceil", "trunc", "frac"]

SPECS: list[OpSpec] = (
    [OpSpec(name, 1, "unary", same) for name in _ANY]
    + [OpSpec(name, 1, "unary", same, domains=("positive",)) for name in _POSITIVE]
    + [
        OpSpec("gelu", 1, "unary", same, draw_attrs=draw_choice("approximate", ["none", "tanh"])),
        OpSpec("pow_scalar", 1, "unary", same, domains=("positive",), draw_attrs=_draw_exponent),
        OpSpec("mul_scalar", 1, "unary", same, draw_attrs=draw_scalar, weight=0.5),
        OpSpec("add_scalar", 1, "unary", same, draw_attrs=draw_scalar, weight=0.5),
    ]
    + [OpSpec(name, 1, "unary", same) for name in _NEW_ANY]
    + [OpSpec(name, 1, "unary", same, domains=(domain,)) for name, domain in _NEW_DOMAINS.items()]
    + [OpSpec(name, 1, "unary", same, weight=0.4) for name in _STEPS]
    + [
        OpSpec("round", 1, "unary", same, draw_attrs=draw_choice("decimals", [0, 0, 1, 2]), weight=0.4),
        OpSpec("nan_to_num", 1, "unary", same, draw_attrs=_draw_nan_to_num, weight=0.5),
        OpSpec("clamp_scalar", 1, "unary", same, draw_attrs=_draw_clamp),
        OpSpec("elu", 1, "unary", same, draw_attrs=draw_choice("alpha", [1.0, 0.5, 2.0])),
        OpSpec("celu", 1, "unary", same, draw_attrs=draw_choice("alpha", [1.0, 0.5, 2.0])),
        OpSpec("leaky_relu", 1, "unary", same, draw_attrs=draw_choice("negative_slope", [0.01, 0.2])),
    ]
)
