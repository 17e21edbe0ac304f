"""Losses: an input and its targets, reduced to a 0-d value (mean, sum) or kept per element (none)."""

from __future__ import annotations

import random

from numfuzz.program.autocast import FP32
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_both, draw_choice, draw_float, terms_of_loss

REDUCTIONS = ["mean", "sum", "none"]


def _loss(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    if any(s.shape != specs[0].shape for s in specs[1:]):
        raise GraphError(f"a loss's targets take its input's shape {specs[0].shape}")
    return TensorSpec(specs[0].shape if attrs["reduction"] == "none" else (), specs[0].dtype)


def _cross_entropy(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    out = _loss(specs, attrs)
    if attrs["reduction"] != "none":
        return out
    shape = specs[0].shape
    return TensorSpec(shape[:1] + shape[2:] if len(shape) > 1 else (), out.dtype)


def _class_targets(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """nll_loss and cross_entropy with class indices: input (C,) or (N, C, d...), targets () or (N, d...)."""
    shape, target = specs[0].shape, specs[1].shape
    if not shape or target != _target_shape(shape):
        raise GraphError(f"class targets {target} do not fit an input {shape}")
    return TensorSpec(target if attrs["reduction"] == "none" else (), specs[0].dtype)


def _target_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[:1] + shape[2:] if len(shape) > 1 else ()


def _classes(spec: TensorSpec, attrs: dict) -> int:
    return spec.shape[1] if len(spec.shape) > 1 else spec.shape[0]


def _class_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    if not spec.shape:
        raise GraphError("class targets need an input with a class dim")
    return [_target_shape(spec.shape)]


def _targets_spec(name: str, call: str, extra=None, reference: str = "") -> OpSpec:
    """A loss over integer class targets; ignore_index -100 (torch's default) ignores none, 0 or 1 the targets of that class."""
    draw = draw_both(draw_choice("reduction", REDUCTIONS), draw_choice("ignore_index", [-100, -100, 0, 1]), *([extra] if extra else []))
    return OpSpec(name, 2, "fresh", _class_targets, domains=("any", "index"), draw_attrs=draw, weight=0.5, operands=_class_operands,
                  index_arg=1, index_bound=_classes, terms=terms_of_loss, bound="undocumented", autocast=FP32, call=call, reference=reference)  # fmt: skip


def _kl_div(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return _loss(specs, {"reduction": "sum" if attrs["reduction"] == "batchmean" else attrs["reduction"]})


def _like_input(count: int):
    def operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
        if not spec.shape:
            raise GraphError("a loss needs a dim")
        return [spec.shape] * count

    return operands


def _spec(
    name: str,
    call: str,
    infer=_loss,
    domains: tuple[str, ...] = (),
    extra=None,
    count: int = 1,
    reductions=REDUCTIONS,
    reference: str = "",
    scalars: tuple[tuple[str, str], ...] = (),
) -> OpSpec:
    draw = draw_both(draw_choice("reduction", reductions), extra) if extra else draw_choice("reduction", reductions)
    # half weight: a reduced loss is 0-d, and few ops can grow a graph from there
    return OpSpec(
        name,
        1 + count,
        "fresh",
        infer,
        domains=domains,
        draw_attrs=draw,
        same_dtype=True,
        weight=0.5,
        operands=_like_input(count),
        terms=terms_of_loss,
        scalars=scalars,
        bound="table",
        autocast=FP32,  # every loss here is on CPU autocast's fp32 list
        call=call,
        reference=reference,
    )


SPECS: list[OpSpec] = [
    _spec("mse_loss", "F.mse_loss({0}, {1}, reduction={reduction!r})"),
    _spec(
        "smooth_l1_loss",
        "F.smooth_l1_loss({0}, {1}, reduction={reduction!r}, beta={beta!r})",
        extra=draw_float("beta", "nonneg", [1.0, 0.5, 2.0]),
        scalars=(("beta", "nonneg"),),
    ),
    _spec(
        "huber_loss",
        "F.huber_loss({0}, {1}, reduction={reduction!r}, delta={delta!r})",
        extra=draw_float("delta", "positive", [1.0, 0.5, 2.0]),
        scalars=(("delta", "positive"),),
    ),
    # input in log space, target probabilities; no "mean", which warns on every call
    _spec("kl_div", "F.kl_div({0}, {1}, reduction={reduction!r})", _kl_div, domains=("any", "positive"), reductions=["sum", "none", "batchmean"]),
    _spec(
        "bce_with_logits",
        "F.binary_cross_entropy_with_logits({0}, {1}, reduction={reduction!r})",
        domains=("any", "probability"),
        reference="bce_logits_exact({0}, {1}, {reduction!r})",
    ),
    _spec(
        "margin_ranking_loss",
        "F.margin_ranking_loss({0}, {1}, {2}, margin={margin!r}, reduction={reduction!r})",
        domains=("any", "any", "sign"),
        extra=draw_float("margin", "moderate", [0.0, 0.5]),  # bf16-inexact margins among the recipe's (pytorch#185517)
        count=2,
        scalars=(("margin", "moderate"),),
    ),
    _spec(
        "soft_margin_loss",
        "F.soft_margin_loss({0}, {1}, reduction={reduction!r})",
        domains=("any", "sign"),
        reference="soft_margin_exact({0}, {1}, {reduction!r})",
    ),
    # class probabilities as targets
    _spec(
        "cross_entropy",
        "F.cross_entropy({0}, {1}, reduction={reduction!r}, label_smoothing={label_smoothing!r})",
        _cross_entropy,
        domains=("any", "probability"),
        extra=draw_float("label_smoothing", "unit_interval", [0.0, 0.1]),
    ),
    # integer class indices as targets (an i64 input)
    _targets_spec(
        "nll_loss",
        "F.nll_loss({0}, {1}, reduction={reduction!r}, ignore_index={ignore_index})",
        reference="F.nll_loss({0}, {1}.long(), reduction={reduction!r}, ignore_index={ignore_index})",
    ),
    _targets_spec(
        "cross_entropy_index",
        "F.cross_entropy({0}, {1}, reduction={reduction!r}, label_smoothing={label_smoothing!r}, ignore_index={ignore_index})",
        draw_choice("label_smoothing", [0.0, 0.1]),
        reference="F.cross_entropy({0}, {1}.long(), reduction={reduction!r}, label_smoothing={label_smoothing!r}, ignore_index={ignore_index})",
    ),
]
