"""Losses: an input and its targets, reduced to a 0-d value (mean, sum) or kept per element (none)."""

from __future__ import annotations

import random

from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, draw_both, draw_choice

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


def _kl_div(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return _loss(specs, {"reduction": "sum" if attrs["reduction"] == "batchmean" else attrs["reduction"]})


def _like_input(count: int):
    def operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
        if not spec.shape:
            raise GraphError("a loss needs a dim")
        return [spec.shape] * count

    return operands


def _spec(name: str, infer=_loss, domains: tuple[str, ...] = (), extra=None, count: int = 1, reductions=REDUCTIONS) -> OpSpec:
    draw = draw_both(draw_choice("reduction", reductions), extra) if extra else draw_choice("reduction", reductions)
    # half weight: a reduced loss is 0-d, and few ops can grow a graph from there
    return OpSpec(name, 1 + count, "fresh", infer, domains=domains, draw_attrs=draw, same_dtype=True, weight=0.5, operands=_like_input(count))


SPECS: list[OpSpec] = [
    _spec("mse_loss"),
    _spec("smooth_l1_loss", extra=draw_choice("beta", [1.0, 0.5, 2.0])),
    _spec("huber_loss", extra=draw_choice("delta", [1.0, 0.5, 2.0])),
    # input in log space, target probabilities; no "mean", which warns on every call
    _spec("kl_div", _kl_div, domains=("any", "positive"), reductions=["sum", "none", "batchmean"]),
    _spec("bce_with_logits", domains=("any", "probability")),
    _spec("margin_ranking_loss", domains=("any", "any", "sign"), extra=draw_choice("margin", [0.0, 0.5]), count=2),
    _spec("soft_margin_loss", domains=("any", "sign")),
    # class probabilities as targets: integer class indices are not values the IR holds
    _spec("cross_entropy", _cross_entropy, domains=("any", "probability"), extra=draw_choice("label_smoothing", [0.0, 0.1])),
]
