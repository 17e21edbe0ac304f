"""How the generator finds a database op's arguments (the family `database`): a form, its first tensor from the program,
the rest new inputs of the form's shapes.

The op's attributes already name its form (`draws_form`). A float form takes the value the generator
picked as its first tensor (a form with a meta function takes it at any size; one without, only at its
sample's shape, else a new input of that shape); an integer or bool form takes one of the program's
integer values of its dtype (one an op made, chaining integer programs), or a new one. Each further
tensor is a new input: of the first value's shape where the sample gave it the first's shape (a
binary op's partner), else of the sample's; a float in the first's dtype, an integer value drawn as
integers are (`values.draw_integers`), positions within the sample's range, or a bool mask. numfuzz
draws every value, layout and dtype; the call's other arguments are the sample's.
"""

from __future__ import annotations

import random
import re
from typing import Any

from numfuzz.program.dtypes import FLOAT_DTYPES as FLOATS
from numfuzz.program.families import Builder, register
from numfuzz.program.ir import GraphError, Node
from numfuzz.program.op_db.calls import DTYPE, FORM, SAMPLE, eager_refuses
from numfuzz.program.op_db.entries import Arg, DatabaseOp, Form
from numfuzz.program.op_spec import OpSpec

CHAIN = 0.7  # the chance that an integer form takes one of the program's integer values, where it has one
# The chance that an op with integer or bool forms draws one of them: an integer program's ops are few among the forms
# (the databases sample floats first), and its values are judged exactly, where no rounding hides a wrong one
INTEGER_FORMS = 0.35


# An integer program's reductions (its database's ReductionOpInfo: sum, prod, amax, argmax, count_nonzero, masked.*) are
# where integer kernels differ most (vectorised loops, their tails, their accumulators: most of the survey's integer bugs),
# and a few dozen among four hundred integer ops: each draws this many times as often there
INTEGER_REDUCTION_WEIGHT = 8.0

# An integer program's first value has a loop's tail past a vector (`odd_tail_shape`) this often: integer kernels'
# vectors hold 4 to 32 elements, and a random shape's few elements never reach past one
INTEGER_TAIL = 0.5

# An integer value drawn as the first tensor of a float form beside float operands, this often where the op has such a
# form: type promotion across an integer or bool and a float tensor (ldexp of a bool by an fp16 tensor, pytorch#197091)
MIXED_FORMS = 0.1
MIXED_FLOATS = ("fp16", "bf16", "fp32")  # the float operands' dtype there (float64 values belong to float64 programs)

# A polynomial's degree (special.*_polynomial_*(x, n)) counts a loop in eager's kernel, n recurrence steps an element:
# drawn in [0, DEGREES), as an integer program's edge values (2**31 - 2) keep eager busy for minutes on one element
DEGREE_OPERAND = re.compile(r"^db\.special\.\w+_polynomial_\w+$")
DEGREES = 16

# An integer program draws an op with float forms only at this share of its weight, a float form given the integer value:
# kept only where eager refuses that dtype on its own (logcumsumexp of uint8 raises), so that a target computing it has
# lost eager's check (`judge.error_parity`, pytorch#197807); where eager computes it, the generator draws another op
REFUSED_DTYPE_WEIGHT = 0.05

INTEGER_VALUES = ("i64", "i32", "u8", "i8", "bool")  # the dtypes the databases sample integer forms in: an integer program's first value's


def takes_integers(spec: OpSpec) -> bool:
    """Has the op integer or bool forms (a database op's: an integer program grows on them)?"""
    return any(f.integer for f in FORMS.get(spec.name, ()))


def in_integer_programs(spec: OpSpec) -> bool:
    """Does an integer program draw the op: a database op, with integer forms or with float ones to refuse an integer?"""
    return spec.name in FORMS


def integer_weight(spec: OpSpec) -> float:
    """The op's weight in an integer program: its own, times INTEGER_REDUCTION_WEIGHT for a reduction, times
    REFUSED_DTYPE_WEIGHT for an op with float forms only."""
    return spec.weight * (INTEGER_REDUCTION_WEIGHT if spec.name in REDUCTIONS else 1.0) * (1.0 if takes_integers(spec) else REFUSED_DTYPE_WEIGHT)


def integer_form(node: Node) -> bool:
    """Is the node a database op's integer or bool form?"""
    form = form_of(node.op, {FORM: node.attr(FORM), SAMPLE: node.attr(SAMPLE)})
    return form is not None and form.integer


def kept_out_of_regions(node: Node) -> bool:
    """A node an autocast region leaves out: an integer form (whose float result autocast may cast in ways no policy
    states), or an op whose policy the snapshot could not measure (`UNMEASURED`)."""
    return node.op in UNMEASURED_AUTOCAST or integer_form(node)


def form_of(op: str, attrs: dict[str, Any]) -> Form | None:
    """The form a database node's attributes name: the drawn one (`sample`), else, in a case written before forms were
    numbered, the first with its call; None for another op."""
    forms, call, k = FORMS.get(op, ()), attrs.get(FORM), attrs.get(SAMPLE)
    if isinstance(k, int) and 0 <= k < len(forms) and forms[k].call == call:
        return forms[k]
    return next((f for f in forms if f.call == call), None)


def draws_form(op: DatabaseOp):
    """The op's attribute drawer: one of its forms, by its call: an integer one for an integer first value, else at
    INTEGER_FORMS where it has both kinds."""
    floats = [k for k, f in enumerate(op.forms) if not f.integer]
    integers = [k for k, f in enumerate(op.forms) if f.integer]
    mixed = [k for k in floats if op.forms[k].mixed]

    def draw(rng: random.Random, specs: list) -> dict[str, Any]:
        integer_first = bool(specs) and specs[0].dtype not in FLOATS
        if integer_first and mixed and (not integers or rng.random() < MIXED_FORMS):
            k = rng.choice(mixed)
            return {FORM: op.forms[k].call, SAMPLE: k}
        if integer_first and not integers:  # its float form, for eager to refuse the integer (REFUSED_DTYPE_WEIGHT)
            k = rng.choice(floats)
            return {FORM: op.forms[k].call, SAMPLE: k}
        pool = integers if integer_first or (integers and (not floats or rng.random() < INTEGER_FORMS)) else floats
        k = rng.choice(pool)
        return {FORM: op.forms[k].call, SAMPLE: k}

    return draw


def with_form(b: Builder, spec: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """The form's tensors, its first from the program; its attributes: the form, and the float dtype `{dtype}` stands for."""
    form = form_of(spec.name, attrs)
    if form is None:
        raise GraphError(f"{spec.name} has no form {attrs.get(FORM)!r}")
    lead = form.args[0]
    if not form.integer and b.specs[first].dtype not in FLOATS:  # a mixed form (MIXED_FORMS): the integer value first
        if not (form.sized or b.specs[first].shape == lead.shape):
            raise GraphError(f"{spec.name}'s form takes {lead.shape}, not {b.specs[first].shape}")
        dtype = b.rng.choice(MIXED_FLOATS)
    else:
        first = _first_integer(b, spec, lead, form, first) if form.integer else _first_float(b, spec, lead, form, first)
        dtype = b.specs[first].dtype
    shape, degree = b.specs[first].shape, DEGREE_OPERAND.match(spec.name) is not None
    args = [first] + [_operand(b, arg, lead, form, shape, dtype, degree) for arg in form.args[1:]]
    if not form.integer and b.specs[first].dtype not in FLOATS and not form.mixed:
        specs = tuple((b.specs[a].shape, b.specs[a].dtype) for a in args)
        if not eager_refuses(form.call, dtype if "{dtype}" in form.call else "", specs):
            raise GraphError(f"{spec.name} takes a {b.specs[first].dtype} in eager: no check of its dtype to test")
    sample = {SAMPLE: attrs[SAMPLE]} if SAMPLE in attrs else {}
    drawn = {FORM: form.call, **sample, **({DTYPE: dtype} if "{dtype}" in form.call else {})}
    return args, drawn


def _first_float(b: Builder, spec: OpSpec, lead: Arg, form: Form, first: int) -> int:
    dtype = b.specs[first].dtype
    if dtype not in spec.dtypes:
        raise GraphError(f"{spec.name} takes no {dtype}")
    # the call's own tried domain, else the one the OpInfo states for the op (mvlgamma's, which the snapshot's try missed)
    domain = lead.domain if lead.domain != "any" else spec.domain(0)
    if form.sized or b.specs[first].shape == lead.shape:
        return b.ensure_domain(first, domain)
    return b.new_input(lead.shape, dtype, domain)


def _first_integer(b: Builder, spec: OpSpec, lead: Arg, form: Form, first: int) -> int:
    """The picked value where it is an integer the form takes (an integer program's), else one of the program's integer
    values of a dtype the op takes (chaining integer ops), else a new one of the sample's dtype."""
    fits = lambda v: (
        b.specs[v].dtype in spec.dtypes and (b.specs[v].dtype == "bool") == (lead.dtype == "bool") and (form.sized or b.specs[v].shape == lead.shape)
    )  # noqa: E731
    if b.specs[first].dtype not in FLOATS and fits(first):
        return first
    found = [v for d in INTEGER_VALUES for v in b.integers(d) if fits(v)]
    if found and b.rng.random() < CHAIN:
        return b.rng.choice(found)
    return b.new_integer_input(lead.shape, lead.dtype)


def _operand(b: Builder, arg: Arg, lead: Arg, form: Form, shape: tuple[int, ...], dtype: str, degree: bool = False) -> int:
    """A further tensor: the first value's shape where the sample gave it the first's, else the sample's; a polynomial's
    degree (`degree`) within [0, DEGREES)."""
    own = shape if form.sized and arg.shape == lead.shape else arg.shape
    if degree:
        return b.new_index_input(own, DEGREES, dtype if arg.floating and lead.floating else arg.dtype)
    if arg.kind == "index":
        return b.new_index_input(own, max(arg.high + 1, 1), arg.dtype)
    if arg.kind == "mask" or not arg.floating:
        return b.new_integer_input(own, arg.dtype)
    return b.new_input(own, dtype if lead.floating else arg.dtype, arg.domain)


FORMS: dict[str, tuple[Form, ...]] = {}  # op name -> its forms, as the snapshot lists them, for the ops the table holds
REDUCTIONS: set[str] = set()  # the ops of FORMS their database classes as reductions
UNMEASURED_AUTOCAST: set[str] = set()  # the ops of FORMS whose autocast policy is UNMEASURED
register("database", with_form)
