"""The ops of PyTorch's op database and Thunder's (`numfuzz.program.op_db`), as entries of the one table.

Each op the snapshot (numfuzz/data/op_db.json) holds forms for is an `OpSpec` of the family
`database`: its forms are drawn as its attributes, its shapes inferred on meta tensors, its call its
node's own. What numfuzz needs of an op is derived where torch states it and defaulted where not:

* dtypes      -- the CPU kernels' (`supported_dtypes("cpu")`), and those its forms' other tensors take;
* domain      -- a unary ufunc's stated domain; else any;
* autocast    -- measured: the result's dtype under a CPU bf16 region (`op_db.reading`); kept out of regions where
                 the measuring call raised there (linalg.pinv: eager's inner matmul casts);
* terms       -- the largest argument's elements per output element (a reduction's length; 1 pointwise);
* bound       -- "table" where numfuzz/data/error_bounds.toml gives the op an entry (the reductions, as their
                 hand-written counterparts); else none is documented: the table's stated default (`undocumented`);
* reference   -- the same call in float64 (`{dtype}` as float64; integer programs as they are);
* weight      -- each op DATABASE_WEIGHT: the database's ops together draw about as often as the hand-written
                 table's (145 in weight over 185 ops), so neither crowds the other out; in an integer program a
                 reduction (the database's ReductionOpInfo) draws INTEGER_REDUCTION_WEIGHT times as often (`op_db.family`).

An op the snapshot refused is left out, with its reason (`REFUSED`, which `numfuzz ops` lists).
"""

from __future__ import annotations

import math
import re
import tomllib
from importlib import resources

from numfuzz.program.op_db.calls import call_text, inferrer
from numfuzz.program.op_db.entries import UNMEASURED, DatabaseOp, snapshot
from numfuzz.program.op_db.family import FORMS, INTEGER_VALUES, REDUCTIONS, UNMEASURED_AUTOCAST, draws_form
from numfuzz.program.op_spec import OpSpec

DATABASE_WEIGHT = 0.3


def _ops_in_bounds_file() -> frozenset[str]:
    data = tomllib.loads(resources.files("numfuzz.data").joinpath("error_bounds.toml").read_text())
    return frozenset(op for entry in data.get("bound", []) for op in entry.get("ops", []))


_IN_BOUNDS_FILE = _ops_in_bounds_file()


_PUBLIC_CALL = re.compile(r"^(?:torch|torch\.nn\.functional|Tensor)\.(\w+)$")  # not torch.masked.var: another computation


def _counterpart(op: DatabaseOp) -> str:
    found = _PUBLIC_CALL.match(op.call)
    return found.group(1) if found else ""


# A normalisation's output has its input's shape, so elements in over elements out says 1: the length it sums is in
# its call instead (a softmax's dim, a layer_norm's normalized_shape, a group_norm's groups; an instance_norm's
# spatial dims), and the bounds file's "log2n" and "chunked" grow with it as with the hand-written softmax's
_ALONG_DIM = ("torch.softmax", "torch.log_softmax", "torch.masked.softmax", "torch.masked.log_softmax", "torch.nn.functional.softmin")
_NORMALIZED_SHAPE = ("torch.nn.functional.layer_norm", "torch.native_layer_norm", "torch.nn.functional.rms_norm")
_SECOND = re.compile(r"^\{0\},\s*(\([^)]*\)|-?\d+)")  # the argument after the input: an int, or a tuple of ints


def _normalised_length(call: str, form: str, shape: tuple[int, ...]) -> int:
    """How many elements one output element of a normalisation is normalised over, from its call text; 1 for another op."""
    if call == "torch.nn.functional.instance_norm":
        return math.prod(shape[2:]) if len(shape) > 2 else 1
    found = _SECOND.match(form[len(call) + 1 :]) if form.startswith(call + "(") else None
    if found is None or not shape:
        return 1
    second = [int(v) for v in re.findall(r"-?\d+", found.group(1))]
    if call in _ALONG_DIM and len(second) == 1:
        return shape[second[0] % len(shape)]
    if call in _NORMALIZED_SHAPE:
        return math.prod(second)
    if call == "torch.nn.functional.group_norm" and len(second) == 1 and len(shape) > 1 and second[0] > 0:
        return math.prod(shape) // max(1, shape[0] * second[0])
    return 1


def _terms(op: DatabaseOp):
    infer = inferrer(op)

    def terms(specs: list, attrs: dict) -> int:
        out = infer(specs, attrs)
        ratio = max((s.numel for s in specs), default=1) // max(out.numel, 1)
        normalised = _normalised_length(op.call, str(attrs.get("form", "")), tuple(specs[0].shape)) if specs else 1
        return max(1, ratio, normalised)

    return terms


def _spec(op: DatabaseOp) -> OpSpec:
    arities = [len(f.args) for f in op.forms]
    dtypes = tuple(dict.fromkeys([*op.dtypes, *(a.dtype for f in op.forms for a in f.args)]))
    if not any(f.integer for f in op.forms):  # an integer value is drawn for eager to refuse (`family.REFUSED_DTYPE_WEIGHT`)
        dtypes += INTEGER_VALUES
    FORMS[op.name] = op.forms
    if op.reduction:
        REDUCTIONS.add(op.name)
    if op.autocast == UNMEASURED:
        UNMEASURED_AUTOCAST.add(op.name)
    return OpSpec(
        op.name,
        min(arities),
        "database",
        inferrer(op),
        optional=max(arities) - min(arities),
        domains=(op.domain,),
        dtypes=dtypes,
        weight=DATABASE_WEIGHT,
        draw_attrs=draws_form(op),
        bound="table" if op.name in _IN_BOUNDS_FILE else "undocumented",
        terms=_terms(op),
        autocast="" if op.autocast == UNMEASURED else op.autocast,
        lower=call_text,
        counterpart=_counterpart(op),
    )


_VERSIONS, _ENTRIES = snapshot()
SPECS = [_spec(op) for op in _ENTRIES if not op.refused and op.forms]
REFUSED = {op.name: op.refused for op in _ENTRIES if op.refused or not op.forms}  # op -> why numfuzz does not draw it
