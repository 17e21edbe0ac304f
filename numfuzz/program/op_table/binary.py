"""Elementwise ops of two or more tensors, broadcasting as torch does; comparisons feeding where or a cast."""

from __future__ import annotations

import random

from numfuzz.program.dtypes import promote
from numfuzz.program.ir import TensorSpec
from numfuzz.program.op_spec import (
    OpSpec,
    broadcast_shapes,
    broadcastable_to,
    draw_both,
    draw_reduce,
    draw_scalars,
    elementwise,
    lines_at,
    one_term,
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


def _scaled(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """ldexp: x's dtype (its exponents are integers), the shape both broadcast to."""
    return TensorSpec(broadcast_shapes(specs[0].shape, specs[1].shape), specs[0].dtype)


def _exponents(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    """The exponents' shape: x's, or it with some dims 1 (one exponent along them)."""
    return [broadcastable_to(rng, spec.shape)]


LDEXP_EXPONENTS = 8  # exponents in [0, 8): x * 2**e is exact, or past the dtype's range inf in eager as compiled


# addcmul takes its value in the op's float type: past the dtype's range eager raises
_ADDCMUL = draw_scalars(("value", "bound"))
_COMPARED, _VALUE, _AT_VALUE = draw_scalars(("value", "any")), (("value", "any"),), lines_at("value")

SPECS: list[OpSpec] = (
    [
        OpSpec(name, 2, "elementwise", elementwise, weight=1.5, bound="table", call=call, swap_group="arithmetic" if name in ("add", "sub", "mul") else "")
        for name, call in {
            "add": "{0} + {1}",
            "sub": "{0} - {1}",
            "mul": "{0} * {1}",
            "div": "{0} / {1}",
            "maximum": "torch.maximum({0}, {1})",
            "minimum": "torch.minimum({0}, {1})",
        }.items()
    ]
    + [
        OpSpec("pow", 2, "elementwise", elementwise, domains=("positive", "any"), bound="table", call="torch.pow({0}, {1})", recomputed=3),
        OpSpec("where", 3, "elementwise", _selected(1), bound="table", call="torch.where({0} > 0, {1}, {2})"),
        OpSpec("lerp", 3, "elementwise", elementwise, same_dtype=True, bound="table", call="torch.lerp({0}, {1}, {2})"),
        OpSpec(
            "addcmul",
            3,
            "elementwise",
            elementwise,
            same_dtype=True,
            draw_attrs=_ADDCMUL,
            scalars=(("value", "bound"),),
            bound="table",
            call="torch.addcmul({0}, {1}, {2}, value={value!r})",
        ),
    ]
    + [
        OpSpec(name, 2, "elementwise", elementwise, bound="undocumented", call=call)
        for name, call in {
            "atan2": "torch.atan2({0}, {1})",
            "hypot": "torch.hypot({0}, {1})",
            "logaddexp": "torch.logaddexp({0}, {1})",
            "logaddexp2": "torch.logaddexp2({0}, {1})",
        }.items()
    ]
    # x * 2**e with int8 exponents, as quantised kernels scale (pytorch#172068); exact while in range
    + [
        OpSpec(
            "ldexp",
            2,
            "fresh",
            _scaled,
            operands=_exponents,
            index_arg=1,
            index_bound=lambda spec, attrs: LDEXP_EXPONENTS,
            index_dtype="i8",
            terms=one_term,
            weight=0.3,
            bound="correctly_rounded",
            call="torch.ldexp({0}, {1})",
        )
    ]
    + [OpSpec("copysign", 2, "elementwise", elementwise, bound="correctly_rounded", call="torch.copysign({0}, {1})")]
    + [OpSpec("xlogy", 2, "elementwise", elementwise, domains=("any", "positive"), bound="undocumented", call="torch.xlogy({0}, {1})")]
    # fmod is exact in IEEE arithmetic, remainder fmod and at most one addition of the divisor
    + [
        OpSpec(n, 2, "elementwise", elementwise, domains=("any", "nonzero"), bound="correctly_rounded", call=call)
        for n, call in {"fmod": "torch.fmod({0}, {1})", "remainder": "torch.remainder({0}, {1})"}.items()
    ]
    # the quotient rounded, then truncated or floored: no bound is documented (eager's floor corrects it, Inductor's not)
    + [
        OpSpec(n, 2, "elementwise", elementwise, domains=("any", "nonzero"), bound="undocumented", call=call)
        for n, call in {"div_trunc": "torch.div({0}, {1}, rounding_mode='trunc')", "div_floor": "torch.div({0}, {1}, rounding_mode='floor')"}.items()
    ]
    + [
        OpSpec("clamp_tensor", 3, "elementwise", elementwise, bound="correctly_rounded", call="torch.clamp({0}, {1}, {2})"),
        # Comparisons compilers fold into selects and masks: a selected value, a count, x times 0 or 1.
        OpSpec("where_lt", 4, "elementwise", _selected(2), bound="correctly_rounded", call="torch.where({0} < {1}, {2}, {3})"),
        OpSpec("isfinite_where", 2, "elementwise", _selected(0), bound="correctly_rounded", call="torch.where(torch.isfinite({0}), {0}, {1})"),
        OpSpec("mul_mask_gt", 2, "elementwise", _masked, bound="correctly_rounded", call="{0} * ({0} > {1}).to({0}.dtype)"),
        # x == its max: an argmax mask, where a compiler comparing an unrounded x with a rounded max drops every element (pytorch#195214)
        OpSpec("mul_mask_eq", 2, "elementwise", _masked, bound="correctly_rounded", call="{0} * ({0} == {1}).to({0}.dtype)"),
        OpSpec(
            "count_ge",
            2,
            "elementwise",
            _count,
            draw_attrs=draw_reduce,
            weight=0.5,
            bound="correctly_rounded",
            call="torch.sum({0} >= {1}, dim={dim}, keepdim={keepdim}).to(torch.promote_types({0}.dtype, {1}.dtype))",
        ),
    ]
    # A tensor compared with a Python scalar, feeding a cast, a select and a count: the scalar is rounded
    # to the tensor's dtype in eager (pytorch#175807), and inputs are placed on the line it draws.
    + [
        OpSpec(
            "eq_scalar_cast",
            1,
            "unary",
            same,
            draw_attrs=_COMPARED,
            scalars=_VALUE,
            lines=_AT_VALUE,
            weight=0.5,
            bound="correctly_rounded",
            call="({0} == {value!r}).to({0}.dtype)",
        ),
        OpSpec(
            "lt_scalar_where",
            2,
            "elementwise",
            elementwise,
            draw_attrs=_COMPARED,
            scalars=_VALUE,
            lines=_AT_VALUE,
            weight=0.5,
            bound="correctly_rounded",
            call="torch.where({0} < {value!r}, {0}, {1})",
        ),
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
            call="torch.sum({0} >= {value!r}, dim={dim}, keepdim={keepdim}).to({0}.dtype)",
        ),
    ]
)
