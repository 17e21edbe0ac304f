"""The snapshot of the op databases (numfuzz/data/op_db.json, `scripts/op_db_snapshot`) as typed, torch-free entries.

An entry is one upstream OpInfo: its numfuzz name (`db.` and the OpInfo's), the public call, the
dtypes its CPU kernels take, whether it has a gradient, its domain and autocast policy, and its
forms, each a call with placeholders for its tensors (`op_db.sources`). An entry the snapshot
refused says why; the table (`op_table.database`) refuses more where this torch lacks the call.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

SNAPSHOT = "op_db.json"
KINDS = ("value", "index", "mask")  # a tensor of a form: a value of the program, positions within a range, a bool mask
REDUCTION = "ReductionOpInfo"  # the class both databases give their reductions


@dataclass(frozen=True)
class Arg:
    """A tensor of a form: its shape in the sample, its dtype there, its kind, and an integer one's range there."""

    shape: tuple[int, ...]
    dtype: str
    kind: str
    low: int = 0
    high: int = 0
    domain: str = "any"  # a float's: the widest domain the call took in the snapshot (`op_spec.DOMAINS`)

    @property
    def floating(self) -> bool:
        return self.dtype in ("fp32", "fp64", "bf16", "fp16")


@dataclass(frozen=True)
class Form:
    """One way to call the op: its source with `{0}`, `{1}`, ... for the tensors (`{dtype}` for the program's float dtype)."""

    call: str
    args: tuple[Arg, ...]
    out: str  # the result's dtype: "same" (the first tensor's) or a dtype's name
    shape: tuple[int, ...]  # the result's shape on the sample's tensors
    meta: bool  # runs on meta tensors: its shapes are inferred at any size; else only the sample's shapes

    @property
    def integer(self) -> bool:
        """An integer or bool program's form: its first tensor is not a float."""
        return not self.args[0].floating

    @property
    def mixed(self) -> bool:
        """Float values beside its first tensor: an integer first tensor meets them (`family.MIXED_FORMS`) by promotion."""
        return any(a.floating and a.kind == "value" for a in self.args[1:])

    @property
    def sized(self) -> bool:
        """Its tensors take other sizes (inferred on meta tensors): none holds positions or a mask, whose ranges and
        shapes are the sample's, made for its other tensors' sizes."""
        return self.meta and all(a.kind == "value" for a in self.args)


UNMEASURED = "unmeasured"  # an autocast policy the snapshot could not measure: the call raised under a region


@dataclass(frozen=True)
class DatabaseOp:
    name: str  # "db.nn.functional.gelu"
    opinfo: str  # the database's own name, with its variant
    source: str  # "torch" or "thunder"
    call: str  # the public function, "torch.nn.functional.gelu", or a method, "Tensor.addcmul_"
    dtypes: tuple[str, ...]
    grad: bool
    domain: str
    autocast: str
    forms: tuple[Form, ...]
    refused: str  # why numfuzz does not draw it ("": it does)
    kind: str = ""  # the database's class of it ("ReductionOpInfo"); "" in a snapshot that did not say

    @property
    def reduction(self) -> bool:
        """A reduction along dims, as its database classes it (sum, prod, amax, argmax, count_nonzero, masked.sum, ...)."""
        return self.kind == REDUCTION


def _form(data: dict[str, Any]) -> Form:
    args = tuple(
        Arg(tuple(int(d) for d in a["shape"]), str(a["dtype"]), str(a["kind"]), *(int(v) for v in a.get("range", (0, 0))), str(a.get("domain", "any")))
        for a in data["args"]
    )
    return Form(str(data["call"]), args, str(data["out"]), tuple(int(d) for d in data.get("shape", ())), bool(data["meta"]))


def _entry(data: dict[str, Any]) -> DatabaseOp:
    return DatabaseOp(
        name=str(data["name"]),
        opinfo=str(data.get("opinfo", "")),
        source=str(data.get("source", "torch")),
        call=str(data.get("call", "")),
        dtypes=tuple(data.get("dtypes", ())),
        grad=bool(data.get("grad", False)),
        domain=str(data.get("domain", "any")),
        autocast=str(data.get("autocast", "")),
        forms=tuple(_form(f) for f in data.get("forms", ())),
        refused=str(data.get("refused", "")),
        kind=str(data.get("kind", "")),
    )


@functools.cache
def snapshot() -> tuple[dict[str, str], tuple[DatabaseOp, ...]]:
    """(the versions it was read on, every entry); no entries where the snapshot is absent."""
    path = resources.files("numfuzz.data").joinpath(SNAPSHOT)
    if not path.is_file():
        return {}, ()
    data = json.loads(path.read_text())
    return {"torch": str(data.get("torch", "")), "thunder": str(data.get("thunder", ""))}, tuple(_entry(e) for e in data.get("ops", ()))
