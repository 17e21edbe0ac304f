"""Unary elementwise ops: one tensor in, one of its shape and dtype out. One entry per op."""

from __future__ import annotations

import random
from typing import Any

from numfuzz.program.ir import TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_choice, draw_float, draw_ordered, draw_scalar, draw_scalars, lines_at, same, scalar


def _draw_exponent(rng: random.Random, specs: list[TensorSpec]) -> dict:
    if rng.random() < 0.5:  # the exponents of everyday formulas
        return {"exponent": rng.choice([0.5, 1.7, 2.0, 3.0, -1.0, -0.5, 2.5])}
    return {"exponent": scalar(rng, "moderate", specs[0])}


def draw_clamp(rng: random.Random, specs: list[TensorSpec]) -> dict:
    low, high = sorted((scalar(rng, "bound", specs[0]), scalar(rng, "bound", specs[0])))
    side = rng.random()
    return {"min": None if side < 0.15 else low, "max": None if 0.15 <= side < 0.3 else high}


def _draw_nan_to_num(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"nan": rng.choice([0.0, 1.0]), "posinf": rng.choice([None, 100.0]), "neginf": rng.choice([None, -100.0])}


def unary(name: str, call: str, bound: str, **facts: Any) -> OpSpec:
    """A unary op's entry: its call over `{0}`, where its error bound comes from (`OpSpec.bound`), and its other facts."""
    return OpSpec(name, 1, "unary", same, call=call, bound=bound, **facts)


_BOUNDS = (("min", "bound"), ("max", "bound"))
_LAMBD = (("lambd", "bound_nonneg"),)
# Piecewise constant or exact ops (sign, floor, ...): a finding needs a rounding upstream to cross a step, so fewer.
STEP_WEIGHT = 0.4

# `captured`: other forms in which a model's captured graph writes an op (`numfuzz.model.mapping`); `recomputed` and
# `swap_group`: its roles in a seam graph and in a block's mutation. Where torch's float64 kernel is not exact enough,
# `reference` calls a helper of `numfuzz.program.exact`; lgamma and digamma take any value (their poles give a
# non-finite reference, and such elements are left out).
SPECS: list[OpSpec] = [
    unary("neg", "torch.neg({0})", "table", captured=("-{0}",)),
    unary("abs", "torch.abs({0})", "table"),
    unary("exp", "torch.exp({0})", "table", recomputed=2),
    unary("expm1", "torch.expm1({0})", "table", recomputed=1),
    unary("sin", "torch.sin({0})", "table", recomputed=1),
    unary("cos", "torch.cos({0})", "table", recomputed=1),
    unary("tanh", "torch.tanh({0})", "table", captured=("F.tanh({0})",), recomputed=1, swap_group="activation"),
    unary("sigmoid", "torch.sigmoid({0})", "table", captured=("F.sigmoid({0})",), recomputed=1, swap_group="activation"),
    unary("silu", "F.silu({0})", "table", recomputed=1, swap_group="activation"),
    unary("relu", "torch.relu({0})", "table", captured=("F.relu({0})", "F.relu({0}, inplace=True)"), swap_group="activation"),
    unary("softplus", "F.softplus({0})", "table", recomputed=1, swap_group="activation"),
    unary("erf", "torch.erf({0})", "table", recomputed=1),
    unary("log", "torch.log({0})", "table", domains=("positive",), recomputed=1),
    unary("log1p", "torch.log1p({0})", "table", domains=("positive",)),
    unary("sqrt", "torch.sqrt({0})", "table", domains=("positive",), recomputed=1, swap_group="root"),
    unary("rsqrt", "torch.rsqrt({0})", "table", domains=("positive",), recomputed=1, swap_group="root"),
    unary("reciprocal", "torch.reciprocal({0})", "table", domains=("positive",)),
    unary(
        "gelu",
        "F.gelu({0}, approximate={approximate!r})",
        "table",
        draw_attrs=draw_choice("approximate", ["none", "tanh"]),
        recomputed=1,
        swap_group="activation",
    ),
    unary(
        "pow_scalar",
        "torch.pow({0}, {exponent!r})",
        "table",
        domains=("positive",),
        draw_attrs=_draw_exponent,
        scalars=(("exponent", "moderate"),),
        recomputed=1,
    ),
    # a scalar on either side of an operator: {0} * 2.0, and as a captured graph may write it, 2.0 * {0}
    unary("mul_scalar", "{0} * {value!r}", "table", draw_attrs=draw_scalar, weight=0.5, scalars=(("value", "any"),), captured=("{value!r} * {0}",)),
    unary("add_scalar", "{0} + {value!r}", "table", draw_attrs=draw_scalar, weight=0.5, scalars=(("value", "any"),), captured=("{value!r} + {0}",)),
    # a division by a scalar (attention's 1/sqrt(d) and softcap's x / c as models write them): one rounding, not x * (1/c)'s two
    unary("div_scalar", "{0} / {value!r}", "table", draw_attrs=draw_scalars(("value", "nonzero")), weight=0.5, scalars=(("value", "nonzero"),)),
    unary("tan", "torch.tan({0})", "undocumented"),
    unary("atan", "torch.atan({0})", "undocumented"),
    unary("sinh", "torch.sinh({0})", "undocumented"),
    unary("cosh", "torch.cosh({0})", "undocumented"),
    unary("asinh", "torch.asinh({0})", "undocumented"),
    unary("exp2", "torch.exp2({0})", "undocumented"),
    unary("erfc", "torch.erfc({0})", "undocumented"),
    unary("lgamma", "torch.lgamma({0})", "undocumented"),
    unary("digamma", "torch.digamma({0})", "undocumented", reference="digamma_exact({0})"),
    unary("square", "torch.square({0})", "correctly_rounded"),
    unary("sinc", "torch.sinc({0})", "undocumented", reference="sinc_exact({0})"),
    unary("selu", "F.selu({0})", "undocumented"),
    unary("hardswish", "F.hardswish({0})", "undocumented", swap_group="activation"),
    unary("hardsigmoid", "F.hardsigmoid({0})", "undocumented"),
    unary("mish", "F.mish({0})", "undocumented", swap_group="activation"),
    unary("softsign", "F.softsign({0})", "undocumented"),
    unary("tanhshrink", "F.tanhshrink({0})", "table", reference="tanhshrink_exact({0})"),
    unary("asin", "torch.asin({0})", "undocumented", domains=("unit",)),
    unary("acos", "torch.acos({0})", "undocumented", domains=("unit",)),
    unary("atanh", "torch.atanh({0})", "undocumented", domains=("unit",)),
    unary("erfinv", "torch.erfinv({0})", "undocumented", domains=("unit",)),
    unary("acosh", "torch.acosh({0})", "undocumented", domains=("above_one",)),
    unary("log2", "torch.log2({0})", "undocumented", domains=("positive",)),
    unary("log10", "torch.log10({0})", "undocumented", domains=("positive",)),
    unary("logit", "torch.logit({0})", "undocumented", domains=("probability",)),
    unary("sign", "torch.sign({0})", "correctly_rounded", weight=STEP_WEIGHT),
    unary("floor", "torch.floor({0})", "correctly_rounded", weight=STEP_WEIGHT),
    unary("ceil", "torch.ceil({0})", "correctly_rounded", weight=STEP_WEIGHT),
    unary("trunc", "torch.trunc({0})", "correctly_rounded", weight=STEP_WEIGHT),
    unary("frac", "torch.frac({0})", "correctly_rounded", weight=STEP_WEIGHT),
    # decimals > 0 scales by 10**decimals and back: two roundings, no documented bound
    unary("round", "torch.round({0}, decimals={decimals})", "undocumented", draw_attrs=draw_choice("decimals", [0, 0, 1, 2]), weight=STEP_WEIGHT),
    unary(
        "nan_to_num",
        "torch.nan_to_num({0}, nan={nan!r}, posinf={posinf!r}, neginf={neginf!r})",
        "correctly_rounded",
        draw_attrs=_draw_nan_to_num,
        weight=0.5,
    ),
    unary(
        "clamp_scalar",
        "torch.clamp({0}, min={min!r}, max={max!r})",
        "correctly_rounded",
        draw_attrs=draw_clamp,
        scalars=_BOUNDS,
        lines=lines_at("min", "max"),
    ),
    unary(
        "elu",
        "F.elu({0}, alpha={alpha!r})",
        "undocumented",
        draw_attrs=draw_float("alpha", "moderate", [1.0, 0.5, 2.0]),
        scalars=(("alpha", "moderate"),),
    ),
    unary(
        "celu",
        "F.celu({0}, alpha={alpha!r})",
        "undocumented",
        draw_attrs=draw_float("alpha", "nonzero", [1.0, 0.5, 2.0]),
        scalars=(("alpha", "nonzero"),),
    ),
    unary(
        "leaky_relu",
        "F.leaky_relu({0}, negative_slope={negative_slope!r})",
        "correctly_rounded",  # x * negative_slope: one rounding
        draw_attrs=draw_float("negative_slope", "moderate", [0.01, 0.2]),
        scalars=(("negative_slope", "moderate"),),
    ),
    # Piecewise ops that compare against a scalar: the lines they draw are where inputs are placed.
    unary(
        "hardtanh",
        "F.hardtanh({0}, min_val={min_val!r}, max_val={max_val!r})",
        "correctly_rounded",
        draw_attrs=draw_ordered("min_val", "max_val"),
        lines=lines_at("min_val", "max_val"),
    ),
    unary(
        "threshold",
        "F.threshold({0}, {threshold!r}, {value!r})",
        "correctly_rounded",
        draw_attrs=draw_scalars(("threshold", "bound"), ("value", "bound")),
        scalars=(("threshold", "bound"), ("value", "bound")),
        lines=lines_at("threshold"),
    ),
    unary("relu6", "F.relu6({0})", "correctly_rounded", lines=lines_at(fixed=(0.0, 6.0))),
    # x, 0, or x -/+ lambd: one rounding
    unary(
        "hardshrink",
        "F.hardshrink({0}, lambd={lambd!r})",
        "correctly_rounded",
        draw_attrs=draw_scalars(*_LAMBD),
        scalars=_LAMBD,
        lines=lines_at("lambd", mirrored=True),
    ),
    unary(
        "softshrink",
        "F.softshrink({0}, lambd={lambd!r})",
        "correctly_rounded",
        draw_attrs=draw_scalars(*_LAMBD),
        scalars=_LAMBD,
        lines=lines_at("lambd", mirrored=True),
    ),
]
