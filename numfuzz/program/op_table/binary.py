"""Elementwise ops of two or more tensors, broadcasting as torch does; comparisons feeding where or a cast."""

from __future__ import annotations

from numfuzz.program.dtypes import promote
from numfuzz.program.ir import TensorSpec
from numfuzz.program.op_spec import (
    OpSpec,
    broadcast_shapes,
    draw_both,
    draw_reduce,
    draw_scalars,
    elementwise,
    lines_at,
    reduce,
    reduced_shape,
    result_dtype,
    same,
)


def _selected(first: int):
    """torch.where's rule: the shape of all arguments broadcast, the dtype of the values selected from `first` on."""

    def infer(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
        return TensorSpec(broadcast_shapes(*(s.shape for s in specs)), result_dtype(specs[first:]))

    return infer


def _masked(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    return TensorSpec(broadcast_shapes(*(s.shape for s in specs)), specs[0].dtype)


def _count(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    shape = broadcast_shapes(*(s.shape for s in specs))
    return TensorSpec(reduced_shape(shape, attrs), promote(*(s.dtype for s in specs)))


# addcmul takes its value in the op's float type: past the dtype's range eager raises
_ADDCMUL = draw_scalars(("value", "bound"))
_COMPARED, _VALUE, _AT_VALUE = draw_scalars(("value", "any")), (("value", "any"),), lines_at("value")

SPECS: list[OpSpec] = (
    [OpSpec(name, 2, "elementwise", elementwise, weight=1.5, bound="table") for name in ["add", "sub", "mul", "div", "maximum", "minimum"]]
    + [
        OpSpec("pow", 2, "elementwise", elementwise, domains=("positive", "any"), bound="table"),
        OpSpec("where", 3, "elementwise", _selected(1), bound="table"),
        OpSpec("lerp", 3, "elementwise", elementwise, same_dtype=True, bound="table"),
        OpSpec("addcmul", 3, "elementwise", elementwise, same_dtype=True, draw_attrs=_ADDCMUL, scalars=(("value", "bound"),), bound="table"),
    ]
    + [OpSpec(name, 2, "elementwise", elementwise, bound="undocumented") for name in ["atan2", "hypot", "logaddexp", "logaddexp2"]]
    + [OpSpec("copysign", 2, "elementwise", elementwise, bound="correctly_rounded")]
    + [OpSpec("xlogy", 2, "elementwise", elementwise, domains=("any", "positive"), bound="undocumented")]
    # fmod is exact in IEEE arithmetic, remainder fmod and at most one addition of the divisor
    + [OpSpec(n, 2, "elementwise", elementwise, domains=("any", "nonzero"), bound="correctly_rounded") for n in ["fmod", "remainder"]]
    # the quotient rounded, then truncated or floored: no bound is documented (eager's floor corrects it, Inductor's not)
    + [OpSpec(n, 2, "elementwise", elementwise, domains=("any", "nonzero"), bound="undocumented") for n in ["div_trunc", "div_floor"]]
    + [
        OpSpec("clamp_tensor", 3, "elementwise", elementwise, bound="correctly_rounded"),
        # Comparisons compilers fold into selects and masks: a selected value, a count, x times 0 or 1.
        OpSpec("where_lt", 4, "elementwise", _selected(2), bound="correctly_rounded"),
        OpSpec("isfinite_where", 2, "elementwise", _selected(0), bound="correctly_rounded"),
        OpSpec("mul_mask_gt", 2, "elementwise", _masked, bound="correctly_rounded"),
        OpSpec("count_ge", 2, "elementwise", _count, draw_attrs=draw_reduce, weight=0.5, bound="correctly_rounded"),
    ]
    # A tensor compared with a Python scalar, feeding a cast, a select and a count: the scalar is rounded
    # to the tensor's dtype in eager (pytorch#175807), and inputs are placed on the line it draws.
    + [
        OpSpec("eq_scalar_cast", 1, "unary", same, draw_attrs=_COMPARED, scalars=_VALUE, lines=_AT_VALUE, weight=0.5, bound="correctly_rounded"),
        OpSpec("lt_scalar_where", 2, "elementwise", elementwise, draw_attrs=_COMPARED, scalars=_VALUE, lines=_AT_VALUE, weight=0.5, bound="correctly_rounded"),
        OpSpec(
            "ge_scalar_count",
            1,
            "reduce",
            reduce,
            draw_attrs=draw_both(draw_reduce, _COMPARED),
            scalars=_VALUE,
            lines=_AT_VALUE,
            weight=0.5,
            bound="correctly_rounded",
        ),
    ]
)
