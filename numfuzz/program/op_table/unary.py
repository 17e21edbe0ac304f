"""Unary elementwise ops: one tensor in, one of its shape and dtype out."""

from __future__ import annotations

import random

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


_BOUNDS = (("min", "bound"), ("max", "bound"))
_ANY = {"neg": "torch.neg({0})", "abs": "torch.abs({0})", "exp": "torch.exp({0})", "expm1": "torch.expm1({0})", "sin": "torch.sin({0})", "cos": "torch.cos({0})", "tanh": "torch.tanh({0})", "sigmoid": "torch.sigmoid({0})", "silu": "F.silu({0})", "relu": "torch.relu({0})", "softplus": "F.softplus({0})", "erf": "torch.erf({0})"}  # fmt: skip
# Other forms in which a model's captured graph writes them (`numfuzz.model.mapping`).
_CAPTURED = {"neg": ("-{0}",), "relu": ("F.relu({0})", "F.relu({0}, inplace=True)"), "tanh": ("F.tanh({0})",), "sigmoid": ("F.sigmoid({0})",)}
# Roles in a seam graph and in a block's mutation (`OpSpec.recomputed`, `OpSpec.swap_group`).
_RECOMPUTED = {"exp": 2, "expm1": 1, "erf": 1, "tanh": 1, "sigmoid": 1, "sin": 1, "cos": 1, "silu": 1, "softplus": 1, "log": 1, "sqrt": 1, "rsqrt": 1}  # fmt: skip
_SWAP_GROUPS = {"silu": "activation", "sigmoid": "activation", "tanh": "activation", "relu": "activation", "softplus": "activation", "sqrt": "root", "rsqrt": "root"}  # fmt: skip
_POSITIVE = {"log": "torch.log({0})", "log1p": "torch.log1p({0})", "sqrt": "torch.sqrt({0})", "rsqrt": "torch.rsqrt({0})", "reciprocal": "torch.reciprocal({0})"}  # fmt: skip
_NEW_DOMAINS = {"asin": ("unit", "torch.asin({0})"), "acos": ("unit", "torch.acos({0})"), "atanh": ("unit", "torch.atanh({0})"), "erfinv": ("unit", "torch.erfinv({0})"), "acosh": ("above_one", "torch.acosh({0})"), "log2": ("positive", "torch.log2({0})"), "log10": ("positive", "torch.log10({0})"), "logit": ("probability", "torch.logit({0})")}  # fmt: skip
# Piecewise constant or exact: a finding needs a rounding upstream to cross a step, so fewer.
_STEPS = {"sign": "torch.sign({0})", "floor": "torch.floor({0})", "ceil": "torch.ceil({0})", "trunc": "torch.trunc({0})", "frac": "torch.frac({0})"}  # fmt: skip

SPECS: list[OpSpec] = (
    [
        OpSpec(
            name,
            1,
            "unary",
            same,
            bound="table",
            call=call,
            captured=_CAPTURED.get(name, ()),
            recomputed=_RECOMPUTED.get(name, 0),
            swap_group=_SWAP_GROUPS.get(name, ""),
        )
        for name, call in _ANY.items()
    ]
    + [
        OpSpec(
            name,
            1,
            "unary",
            same,
            domains=("positive",),
            bound="table",
            call=call,
            recomputed=_RECOMPUTED.get(name, 0),
            swap_group=_SWAP_GROUPS.get(name, ""),
        )
        for name, call in _POSITIVE.items()
    ]
    + [
        OpSpec(
            "gelu",
            1,
            "unary",
            same,
            draw_attrs=draw_choice("approximate", ["none", "tanh"]),
            bound="table",
            call="F.gelu({0}, approximate={approximate!r})",
            recomputed=1,
            swap_group="activation",
        ),
        OpSpec(
            "pow_scalar",
            1,
            "unary",
            same,
            domains=("positive",),
            draw_attrs=_draw_exponent,
            scalars=(("exponent", "moderate"),),
            bound="table",
            call="torch.pow({0}, {exponent!r})",
            recomputed=1,
        ),
    ]
    # a scalar on either side of an operator: {0} * 2.0, and as a captured graph may write it, 2.0 * {0}
    + [
        OpSpec(
            name,
            1,
            "unary",
            same,
            draw_attrs=draw_scalar,
            weight=0.5,
            scalars=(("value", "any"),),
            bound="table",
            call=f"{{0}} {sign} {{value!r}}",
            captured=(f"{{value!r}} {sign} {{0}}",),
        )
        for name, sign in (("mul_scalar", "*"), ("add_scalar", "+"))
    ]
    # a division by a scalar (attention's 1/sqrt(d) and softcap's x / c as models write them): one rounding, not x * (1/c)'s two
    + [
        OpSpec(
            "div_scalar",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("value", "nonzero")),
            weight=0.5,
            scalars=(("value", "nonzero"),),
            bound="table",
            call="{0} / {value!r}",
        )
    ]
    # Added with the table's second half; lgamma and digamma take any value (their poles give a non-finite reference, and
    # such elements are left out). Where torch's float64 kernel is not exact enough the reference calls a helper of
    # `numfuzz.program.exact`.
    + [
        OpSpec("tan", 1, "unary", same, bound="undocumented", call="torch.tan({0})"),
        OpSpec("atan", 1, "unary", same, bound="undocumented", call="torch.atan({0})"),
        OpSpec("sinh", 1, "unary", same, bound="undocumented", call="torch.sinh({0})"),
        OpSpec("cosh", 1, "unary", same, bound="undocumented", call="torch.cosh({0})"),
        OpSpec("asinh", 1, "unary", same, bound="undocumented", call="torch.asinh({0})"),
        OpSpec("exp2", 1, "unary", same, bound="undocumented", call="torch.exp2({0})"),
        OpSpec("erfc", 1, "unary", same, bound="undocumented", call="torch.erfc({0})"),
        OpSpec("lgamma", 1, "unary", same, bound="undocumented", call="torch.lgamma({0})"),
        OpSpec("digamma", 1, "unary", same, bound="undocumented", call="torch.digamma({0})", reference="digamma_exact({0})"),
        OpSpec("square", 1, "unary", same, bound="correctly_rounded", call="torch.square({0})"),
        OpSpec("sinc", 1, "unary", same, bound="undocumented", call="torch.sinc({0})", reference="sinc_exact({0})"),
        OpSpec("selu", 1, "unary", same, bound="undocumented", call="F.selu({0})"),
        OpSpec("hardswish", 1, "unary", same, bound="undocumented", call="F.hardswish({0})", swap_group="activation"),
        OpSpec("hardsigmoid", 1, "unary", same, bound="undocumented", call="F.hardsigmoid({0})"),
        OpSpec("mish", 1, "unary", same, bound="undocumented", call="F.mish({0})", swap_group="activation"),
        OpSpec("softsign", 1, "unary", same, bound="undocumented", call="F.softsign({0})"),
        OpSpec("tanhshrink", 1, "unary", same, bound="table", call="F.tanhshrink({0})", reference="tanhshrink_exact({0})"),
    ]
    + [OpSpec(name, 1, "unary", same, domains=(domain,), bound="undocumented", call=call) for name, (domain, call) in _NEW_DOMAINS.items()]
    + [OpSpec(name, 1, "unary", same, weight=0.4, bound="correctly_rounded", call=call) for name, call in _STEPS.items()]
    + [
        # decimals > 0 scales by 10**decimals and back: two roundings, no documented bound
        OpSpec(
            "round",
            1,
            "unary",
            same,
            draw_attrs=draw_choice("decimals", [0, 0, 1, 2]),
            weight=0.4,
            bound="undocumented",
            call="torch.round({0}, decimals={decimals})",
        ),
        OpSpec(
            "nan_to_num",
            1,
            "unary",
            same,
            draw_attrs=_draw_nan_to_num,
            weight=0.5,
            bound="correctly_rounded",
            call="torch.nan_to_num({0}, nan={nan!r}, posinf={posinf!r}, neginf={neginf!r})",
        ),
        OpSpec(
            "clamp_scalar",
            1,
            "unary",
            same,
            draw_attrs=draw_clamp,
            scalars=_BOUNDS,
            lines=lines_at("min", "max"),
            bound="correctly_rounded",
            call="torch.clamp({0}, min={min!r}, max={max!r})",
        ),
        OpSpec(
            "elu",
            1,
            "unary",
            same,
            draw_attrs=draw_float("alpha", "moderate", [1.0, 0.5, 2.0]),
            scalars=(("alpha", "moderate"),),
            bound="undocumented",
            call="F.elu({0}, alpha={alpha!r})",
        ),
        OpSpec(
            "celu",
            1,
            "unary",
            same,
            draw_attrs=draw_float("alpha", "nonzero", [1.0, 0.5, 2.0]),
            scalars=(("alpha", "nonzero"),),
            bound="undocumented",
            call="F.celu({0}, alpha={alpha!r})",
        ),
        OpSpec(
            "leaky_relu",
            1,
            "unary",
            same,
            draw_attrs=draw_float("negative_slope", "moderate", [0.01, 0.2]),
            scalars=(("negative_slope", "moderate"),),
            bound="correctly_rounded",  # x * negative_slope: one rounding
            call="F.leaky_relu({0}, negative_slope={negative_slope!r})",
        ),
    ]
    # Piecewise ops that compare against a scalar: the lines they draw are where inputs are placed.
    + [
        OpSpec(
            "hardtanh",
            1,
            "unary",
            same,
            draw_attrs=draw_ordered("min_val", "max_val"),
            lines=lines_at("min_val", "max_val"),
            bound="correctly_rounded",
            call="F.hardtanh({0}, min_val={min_val!r}, max_val={max_val!r})",
        ),
        OpSpec(
            "threshold",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("threshold", "bound"), ("value", "bound")),
            scalars=(("threshold", "bound"), ("value", "bound")),
            lines=lines_at("threshold"),
            bound="correctly_rounded",
            call="F.threshold({0}, {threshold!r}, {value!r})",
        ),
        OpSpec("relu6", 1, "unary", same, lines=lines_at(fixed=(0.0, 6.0)), bound="correctly_rounded", call="F.relu6({0})"),
        OpSpec(
            "hardshrink",
            1,
            "unary",
            same,
            draw_attrs=draw_scalars(("lambd", "bound_nonneg")),
            scalars=(("lambd", "bound_nonneg"),),
            lines=lines_at("lambd", mirrored=True),
            bound="correctly_rounded",  # x, 0, or x -/+ lambd: one rounding
            call="F.hardshrink({0}, lambd={lambd!r})",
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
            call="F.softshrink({0}, lambd={lambd!r})",
        ),
    ]  # fmt: skip
)
