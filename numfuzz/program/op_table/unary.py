"""Unary elementwise ops: one tensor in, one of its shape and dtype out."""

from __future__ import annotations

import random

from numfuzz.program.ir import TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_choice, draw_ordered, draw_scalar, draw_scalars, lines_at, same, scalar


def _draw_exponent(rng: random.Random, specs: list[TensorSpec]) -> dict:
    if rng.random() < 0.5:  # the exponents of everyday formulas
        return {"exponent": rng.choice([0.5, 1.7, 2.0, 3.0, -1.0, -0.5, 2.5])}
    return {"exponent": scalar(rng, "moderate", specs[0])}


def _draw_clamp(rng: random.Random, specs: list[TensorSpec]) -> dict:
    low, high = sorted((scalar(rng, "bound", specs[0]), scalar(rng, "bound", specs[0])))
    side = rng.random()
    return {"min": None if side < 0.15 else low, "max": None if 0.15 <= side < 0.3 else high}


def _draw_nan_to_num(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"nan": rng.choice([0.0, 1.0]), "posinf": rng.choice([None, 100.0]), "neginf": rng.choice([None, -100.0])}


_BOUNDS = (("min", "bound"), ("max", "bound"))
_ANY = ["neg", "abs", "exp", "expm1", "sin", "cos", "tanh", "sigmoid", "silu", "relu", "softplus", "erf"]
_POSITIVE = ["log", "log1p", "sqrt", "rsqrt", "reciprocal"]
# Added with the table's second half; lgamma and digamma take any value (their poles give a
# non-finite reference, and such elements are left out).
_NEW_ANY = ["tan", "atan", "sinh", "cosh", "asinh", "exp2", "erfc", "lgamma", "digamma", "sinc",
            "selu", "hardswish", "hardsigmoid", "mish", "softsign"]  # fmt: skip
_NEW_DOMAINS = {"asin": "unit", "acos": "unit", "atanh": "unit", "erfinv": "unit", "acosh": "above_one",
                "log2": "positive", "log10": "positive", "logit": "probability"}  # fmt: skip
# Piecewise constant or exact: a finding needs a rounding upstream to cross a step, so fewer.
_STEPS = ["sign", "floor", "ceil", "trunc", "frac"]

SPECS: list[OpSpec] = (
    [OpSpec(name, 1, "unary", same, bound="table") for name in _ANY]
    + [OpSpec(name, 1, "unary", same, domains=("positive",), bound="table") for name in _POSITIVE]
    + [
        OpSpec("gelu", 1, "unary", same, draw_attrs=draw_choice("approximate", ["none", "tanh"]), bound="table"),
        OpSpec("pow_scalar", 1, "unary", same, domains=("positive",), draw_attrs=_draw_exponent, scalars=(("exponent", "moderate"),), bound="table"),
        OpSpec("mul_scalar", 1, "unary", same, draw_attrs=draw_scalar, weight=0.5, scalars=(("value", "any"),), bound="table"),
        OpSpec("add_scalar", 1, "unary", same, draw_attrs=draw_scalar, weight=0.5, scalars=(("value", "any"),), bound="table"),
    ]
    + [OpSpec(name, 1, "unary", same, bound="undocumented") for name in _NEW_ANY]
    + [OpSpec("square", 1, "unary", same, bound="correctly_rounded"), OpSpec("tanhshrink", 1, "unary", same, bound="table")]
    + [OpSpec(name, 1, "unary", same, domains=(domain,), bound="undocumented") for name, domain in _NEW_DOMAINS.items()]
    + [OpSpec(name, 1, "unary", same, weight=0.4, bound="correctly_rounded") for name in _STEPS]
    + [
        # decimals > 0 scales by 10**decimals and back: two roundings, no documented bound
        OpSpec("round", 1, "unary", same, draw_attrs=draw_choice("decimals", [0, 0, 1, 2]), weight=0.4, bound="undocumented"),
        OpSpec("nan_to_num", 1, "unary", same, draw_attrs=_draw_nan_to_num, weight=0.5, bound="correctly_rounded"),
        OpSpec("clamp_scalar", 1, "unary", same, draw_attrs=_draw_clamp, scalars=_BOUNDS, lines=lines_at("min", "max"), bound="correctly_rounded"),
        OpSpec("elu", 1, "unary", same, draw_attrs=draw_choice("alpha", [1.0, 0.5, 2.0]), scalars=(("alpha", "moderate"),), bound="undocumented"),
        OpSpec("celu", 1, "unary", same, draw_attrs=draw_choice("alpha", [1.0, 0.5, 2.0]), bound="undocumented"),
        OpSpec(
            "leaky_relu",
            1,
            "unary",
            same,
            draw_attrs=draw_choice("negative_slope", [0.01, 0.2]),
            scalars=(("negative_slope", "moderate"),),
            bound="correctly_rounded",  # x * negative_slope: one rounding
        ),
    ]
    # Piecewise ops that compare against a scalar: the lines they draw are where inputs are placed.
    + [
        OpSpec("hardtanh", 1, "unary", same, draw_attrs=draw_ordered("min_val", "max_val"), lines=lines_at("min_val", "max_val"), bound="correctly_rounded"),
        OpSpec(
            "threshold",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("threshold", "bound"), ("value", "bound")),
            scalars=(("threshold", "bound"), ("value", "bound")),
            lines=lines_at("threshold"),
            bound="correctly_rounded",
        ),
        OpSpec("relu6", 1, "unary", same, lines=lines_at(fixed=(0.0, 6.0)), bound="correctly_rounded"),
        OpSpec(
            "hardshrink",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("lambd", "bound_nonneg")),
            scalars=(("lambd", "bound_nonneg"),),
            lines=lines_at("lambd", mirrored=True),
            bound="correctly_rounded",  # x, 0, or x -/+ lambd: one rounding
        ),
        OpSpec(
            "softshrink",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("lambd", "bound_nonneg")),
            scalars=(("lambd", "bound_nonneg"),),
            lines=lines_at("lambd", mirrored=True),
            bound="correctly_rounded",  # x, 0, or x -/+ lambd: one rounding
        ),
    ]  # fmt: skip
)
