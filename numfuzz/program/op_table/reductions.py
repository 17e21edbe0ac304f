"""Reductions along one dim, scans, softmaxes and normalisations."""

from __future__ import annotations

import math
import random

from numfuzz.program.autocast import FP32
from numfuzz.program.dtypes import PROGRAM_DTYPES
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import (
    EPS,
    OpSpec,
    along_dim,
    draw_both,
    draw_choice,
    draw_dim,
    draw_eps,
    draw_reduce,
    draw_var,
    last_dim,
    need_rank,
    one_term,
    reduce,
    terms_last_dim,
)


def _in_dtype(infer):
    """A reduction with `dtype=`: the shape `infer` gives, in the dtype it computes in."""

    def infer_in(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
        if attrs["dtype"] not in PROGRAM_DTYPES:
            raise GraphError(f"a reduction computes in a program dtype, not {attrs['dtype']!r}")
        return TensorSpec(infer(specs, attrs).shape, attrs["dtype"])

    return infer_in


def _draw_other_dtype(rng: random.Random, specs: list[TensorSpec]) -> dict:
    """Another dtype than the argument's: wider (bf16 summed in fp32, as mixed precision accumulates) or narrower."""
    return {"dtype": rng.choice([d for d in PROGRAM_DTYPES if d != specs[0].dtype])}


def _group_norm(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    need_rank(specs[0], 2)
    shape, groups = specs[0].shape, attrs["num_groups"]
    if shape[1] % groups:
        raise GraphError(f"{groups} groups do not divide {shape[1]} channels")
    if specs[0].numel // groups == 1:  # torch refuses to normalise a single value per group and batch
        raise GraphError("group_norm needs more than one value per group")
    return specs[0]


def _group_terms(specs: list[TensorSpec], attrs: dict) -> int:
    """group_norm's terms per output element: its group's statistics sum channels / groups x the spatial dims' elements."""
    shape = specs[0].shape
    return shape[1] // attrs["num_groups"] * math.prod(shape[2:])


def _affine(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x = last_dim(specs, attrs)
    if any(s.shape != x.shape[-1:] for s in specs[1:]):
        raise GraphError(f"a weight and bias of shape {x.shape[-1:]}, got {[s.shape for s in specs[1:]]}")
    return x


def _last_dim_twice(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    return [last_dim([spec], attrs).shape[-1:]] * 2


def _draw_group_norm(rng: random.Random, specs: list[TensorSpec]) -> dict:
    need_rank(specs[0], 2)
    channels = specs[0].shape[1]
    return {"num_groups": rng.choice([g for g in range(1, channels + 1) if channels % g == 0]), **draw_eps(rng, specs)}


def _kept(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """A reduction along `dim` that keeps it (size 1): an index reduction's gather needs the index at the argument's rank."""
    return reduce(specs, {**attrs, "keepdim": True})


def _batch_norm(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    need_rank(specs[0], 2)
    if any(s.shape != (specs[0].shape[1],) for s in specs[1:]):
        raise GraphError("batch_norm's statistics, weight and bias need shape (channels,)")
    return specs[0]


def _channels(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 2)
    return [(spec.shape[1],)] * 4  # running mean, running variance, weight, bias


SPECS: list[OpSpec] = (
    [
        OpSpec(
            name,
            1,
            "reduce",
            reduce,
            draw_attrs=draw_reduce,
            bound="table",
            call=call,
            combines=combines,
            divides_by_count=name == "mean",
            consumer=1,
            swap_group="reduction",
        )
        for name, call, combines in (
            ("sum", "torch.sum({0}, dim={dim}, keepdim={keepdim})", "add"),
            ("mean", "torch.mean({0}, dim={dim}, keepdim={keepdim})", "add"),
            ("amax", "torch.amax({0}, dim={dim}, keepdim={keepdim})", ""),
        )
    ]
    + [
        OpSpec(
            "var",
            1,
            "reduce",
            reduce,
            draw_attrs=draw_var,
            bound="table",
            call="torch.var({0}, dim={dim}, correction={correction}, keepdim={keepdim})",
            consumer=1,
        )
    ]
    + [
        OpSpec(
            name,
            1,
            "reduce",
            along_dim,
            draw_attrs=draw_dim,
            bound="table",
            call=call,
            captured=(f"F.{name}({{0}}, dim={{dim}})",),
            consumer=2,
            recomputes_input=True,
            subtracts_row_max=True,
            swap_group="softmax",
        )
        for name, call in {"softmax": "torch.softmax({0}, dim={dim})", "log_softmax": "torch.log_softmax({0}, dim={dim})"}.items()
    ]
    + [
        OpSpec(
            name,
            1,
            "norm",
            last_dim,
            draw_attrs=draw_eps,
            scalars=EPS,
            bound="table",
            call=call,
            consumer=1,
            recomputes_input=name == "layer_norm",
            swap_group="norm",
        )
        for name, call in {"layer_norm": "F.layer_norm({0}, {0}.shape[-1:], eps={eps!r})", "rms_norm": "F.rms_norm({0}, {0}.shape[-1:], eps={eps!r})"}.items()
    ]
    + [
        # with a weight and a bias over the last dim, as nn.LayerNorm calls it (GPT-2, BERT, ViT)
        OpSpec(
            "layer_norm_affine",
            3,
            "fresh",
            _affine,
            weight=0.5,
            draw_attrs=draw_eps,
            scalars=EPS,
            same_dtype=True,
            operands=_last_dim_twice,
            terms=terms_last_dim,
            bound="table",
            call="F.layer_norm({0}, {0}.shape[-1:], {1}, {2}, eps={eps!r})",
            recomputes_input=True,
        )
    ]
    + [
        OpSpec(
            "prod",
            1,
            "reduce",
            reduce,
            draw_attrs=draw_reduce,
            bound="undocumented",
            autocast=FP32,
            call="torch.prod({0}, dim={dim}, keepdim={keepdim})",
            combines="multiply",
        )
    ]  # on CPU autocast's fp32 list
    + [OpSpec("amin", 1, "reduce", reduce, draw_attrs=draw_reduce, bound="correctly_rounded", call="torch.amin({0}, dim={dim}, keepdim={keepdim})")]
    # Index reductions, judged through what they select: the argument's element at each index, which the float64
    # reference takes as the extreme itself. A tie selects equal values, so only an index that misses shows (pytorch#178964,
    # #183082: indices of a transposed input); compiled code computes the index and the gather it feeds. `torch.gather`,
    # not `take_along_dim` (which is gather after broadcasting, in eager as under torch.compile): it takes a 0-d argument
    + [
        OpSpec(name, 1, "reduce", _kept, draw_attrs=draw_dim, weight=0.4, bound="correctly_rounded", call=call, reference=reference)
        for name, call, reference in (
            ("argmax", "torch.gather({0}, {dim}, torch.argmax({0}, dim={dim}, keepdim=True))", "torch.amax({0}, dim={dim}, keepdim=True)"),
            ("argmin", "torch.gather({0}, {dim}, torch.argmin({0}, dim={dim}, keepdim=True))", "torch.amin({0}, dim={dim}, keepdim=True)"),
            # torch.max with a dim: values and indices from one reduction; its indices are what is judged
            ("max_dim", "torch.gather({0}, {dim}, torch.max({0}, dim={dim}, keepdim=True).indices)", "torch.amax({0}, dim={dim}, keepdim=True)"),
        )
    ]
    + [OpSpec("logsumexp", 1, "reduce", reduce, draw_attrs=draw_reduce, bound="undocumented", call="torch.logsumexp({0}, dim={dim}, keepdim={keepdim})")]
    + [
        OpSpec(
            "std", 1, "reduce", reduce, draw_attrs=draw_var, bound="undocumented", call="torch.std({0}, dim={dim}, correction={correction}, keepdim={keepdim})"
        ),
        # var_mean returns two tensors; the IR's ops return one, so an attribute picks it.
        OpSpec(
            "var_mean",
            1,
            "reduce",
            reduce,
            draw_attrs=draw_both(draw_var, draw_choice("which", [0, 1])),
            weight=0.5,
            bound="undocumented",
            call="torch.var_mean({0}, dim={dim}, correction={correction}, keepdim={keepdim})[{which}]",
        ),
        # ord is "inf" or a number: attributes are JSON, which has no infinity
        OpSpec(
            "vector_norm",
            1,
            "reduce",
            reduce,
            draw_attrs=draw_both(draw_reduce, draw_choice("ord", [1, 2, "inf"])),
            bound="undocumented",
            call="torch.linalg.vector_norm({0}, ord=float({ord!r}), dim={dim}, keepdim={keepdim})",
        ),
    ]
    + [
        OpSpec(name, 1, "reduce", along_dim, draw_attrs=draw_dim, bound="undocumented", call=call)
        for name, call in {"cumsum": "torch.cumsum({0}, dim={dim})", "logcumsumexp": "torch.logcumsumexp({0}, dim={dim})"}.items()
    ]
    # With `dtype=`: torch casts the argument to the dtype, then reduces (sum, prod, cumsum) or sums and divides
    # (mean) in it; the reference rounds the argument to the dtype once (`OpSpec.computes_in`). A mean combines nothing the
    # judge may reorder or split: its parts would need weighing
    + [
        OpSpec(
            f"{name}_dtype",
            1,
            "reduce",
            _in_dtype(infer),
            draw_attrs=draw_both(draw, _draw_other_dtype),
            weight=0.4,
            bound=bound,
            call=call,
            combines=combines,
            divides_by_count=name == "mean",
            computes_in="dtype",
        )
        for name, infer, draw, bound, combines, call in (
            ("sum", reduce, draw_reduce, "table", "add", "torch.sum({0}, dim={dim}, keepdim={keepdim}, dtype={dtype})"),
            ("mean", reduce, draw_reduce, "table", "", "torch.mean({0}, dim={dim}, keepdim={keepdim}, dtype={dtype})"),
            ("prod", reduce, draw_reduce, "undocumented", "multiply", "torch.prod({0}, dim={dim}, keepdim={keepdim}, dtype={dtype})"),
            ("cumsum", along_dim, draw_dim, "undocumented", "", "torch.cumsum({0}, dim={dim}, dtype={dtype})"),
        )
    ]
    + [
        OpSpec("cumprod", 1, "reduce", along_dim, draw_attrs=draw_dim, weight=0.5, bound="undocumented", call="torch.cumprod({0}, dim={dim})"),
        OpSpec(
            "group_norm",
            1,
            "norm",
            _group_norm,
            draw_attrs=_draw_group_norm,
            terms=_group_terms,
            scalars=EPS,
            bound="undocumented",
            call="F.group_norm({0}, {num_groups}, eps={eps!r})",
            recomputes_input=True,
        ),
        # eval mode: running statistics are inputs, the variance positive
        OpSpec(
            "batch_norm",
            5,
            "fresh",
            _batch_norm,
            domains=("any", "any", "positive"),
            draw_attrs=draw_eps,
            scalars=EPS,
            same_dtype=True,
            operands=_channels,
            terms=one_term,  # eval mode: x's element, scaled and shifted by its channel's statistics
            bound="undocumented",
            call="F.batch_norm({0}, {1}, {2}, {3}, {4}, training=False, eps={eps!r})",
        ),
    ]
)
