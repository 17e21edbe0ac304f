"""What a finding is about: its signature (target, symptom, culprit op, dtype, cause), and its group.

* symptom -- the verdict; for a crash also the exception's class (`crash_compile:TypeError`).
* ops     -- for accuracy findings (less_accurate, nonfinite, nonfinite_class), the op where the error starts, as
             `numfuzz.judge.analysis` locates it (a dropped cast names the cast). For other
             symptoms it is unknown `()` until minimisation, which names the ops left.
* dtype   -- the dtype of that op's value ("" when not located).
* cause   -- for accuracy findings, the cause class whose test held (`numfuzz.judge.cause_tests`).
* mode    -- how the case compiled, where not static with the default options: `dynamic`,
             `marked` and the drawn compiler options (`RunSpec.compile_label`); an accuracy finding
             that needs them is filed apart from one that does not (the minimiser drops what is not
             needed); a crash is one group per message whatever mode it was drawn in.
* at      -- `second_size` when the difference shows only at the second size of a dynamic
             compile (`numfuzz.judge.second_size`): the program compiled at one size, run at another.
* fingerprint -- for a crash, its normalised message (`numfuzz.judge.crash`): crashes are grouped
             by it, so an unminimised crash joins the group its minimised sibling names. For a
             metadata finding, its first difference's: the op and what differs (`exp: strides (#)
             where eager gives (#)`).

Findings are grouped by root cause (`group_key`): an accuracy finding by target, cause and op,
whatever its symptom and dtype (a cancellation that makes a later pow infinite is that
cancellation; the same formula cancels in bf16 and in fp32); every dropped cast on a target in
one group, whatever op consumes the cast. A finding that shows a known *mechanism*
(`judge.mechanism`) is filed under it whatever its culprit op: the `softmax(pow)`
class is located at `pow`, `pow_scalar`, `expm1` or at the softmax itself, depending on what the
compiler fuses, yet it is one bug. `numfuzz.corpus.grouping` puts a known upstream issue first.

Minimisation keeps the finding: a candidate counts only when an output with the same symptom
has, in its cone, a node of the culprit op with the culprit dtype (`same_finding`); downstream ops
and other outputs may go. A crash keeps its fingerprint; a metadata finding keeps its kind of
difference (strides, sharing, viewability) among those it lists, whatever op makes the output
that shows it, and is named again by that op once minimised (`renamed`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from numfuzz.judge.cause import BACKWARD, current_name, root_title
from numfuzz.judge.crash import crash_fingerprint, metadata_fingerprints, metadata_kind
from numfuzz.judge.execute import AT_TEXT, Outcome, flagged_output
from numfuzz.judge.oracle import bits_lost, gradient_bits_lost
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.autocast import region_label
from numfuzz.program.graph_edit import cone
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.run_spec import RunSpec

_LEADING_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*):")  # "TypeError: ..." as execute reports a crash


_EXCEPTION = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Interrupt))\b")


@dataclass(frozen=True)
class Signature:
    target: str
    symptom: str
    ops: tuple[str, ...] = ()
    dtype: str = ""
    cause: str = ""
    mode: str = ""
    at: str = ""
    fingerprint: str = ""

    @property
    def located(self) -> bool:
        return bool(self.ops)

    @property
    def where(self) -> str:
        """The target, with how it compiled and where the difference shows, when not the default: `inductor [dynamic, at the second size]`."""
        parts = [p for p in (self.mode, AT_TEXT.get(self.at, self.at)) if p]
        return f"{self.target} [{', '.join(parts)}]" if parts else self.target

    def text(self) -> str:
        return f"{self.where} | {self.symptom} | {'+'.join(self.ops) or '?'} | {self.dtype or '-'}" + (f" | {self.cause}" if self.cause else "")

    def group_key(self) -> tuple:
        """Findings with one key share a root cause."""
        extra = (self.mode, self.at) if self.mode or self.at else ()  # old signatures keep their keys
        if root_title(self.cause):
            return (self.target, self.cause) + extra
        if self.cause:
            return (self.target, self.cause, self.ops) + extra
        if self.fingerprint:  # a crash: one cause per message, whatever ops minimising leaves and whatever mode it was drawn in
            return (self.target, self.symptom, self.fingerprint) + ((self.at,) if self.at else ())
        return (self.target, self.symptom, self.ops, self.dtype) + extra

    def to_json(self) -> dict:
        data = {"target": self.target, "symptom": self.symptom, "ops": list(self.ops), "dtype": self.dtype}
        for name in ("cause", "mode", "at", "fingerprint"):
            if getattr(self, name):
                data[name] = getattr(self, name)
        return data

    @staticmethod
    def from_json(data: dict) -> Signature:
        ops = tuple(str(o) for o in data.get("ops", []))
        extra = {k: str(data.get(k, "")) for k in ("cause", "mode", "at", "fingerprint")}
        extra["cause"] = current_name(extra["cause"])  # a cause renamed since the case was stored
        return Signature(str(data["target"]), str(data["symptom"]), ops, str(data.get("dtype", "")), **extra)


def mode_label(run: RunSpec | None, graph: Graph | None = None) -> str:
    """How a case compiles and runs, in a few words: the run's size mode and options, and the program's autocast region."""
    return " ".join(part for part in (run.compile_label() if run is not None else "", region_label(graph) if graph is not None else "") if part)


def signature_of(target: str, outcome: Outcome, run: RunSpec | None = None, graph: Graph | None = None) -> Signature:
    """The signature an outcome shows: located and with its cause when the outcome carries an analysis; `run` and `graph` say how it compiled."""
    facts = outcome.analysis
    where = {"mode": mode_label(run, graph), "at": outcome.at}
    if outcome.verdict.is_accuracy and facts is not None and facts.op:
        return Signature(target, symptom_of(outcome), (facts.op,), facts.dtype, facts.cause, **where)
    if outcome.verdict.is_refusal and facts is not None and facts.op:  # named by the op that draws it alone (`judge.refusing_op`)
        return Signature(target, symptom_of(outcome), (facts.op,), facts.dtype, fingerprint=fingerprints_of(outcome)[0], **where)
    if outcome.verdict.is_finding and not outcome.verdict.is_accuracy and not outcome.verdict.kills_process:
        cause = facts.cause if facts is not None else ""  # an integer output's dropped cast (`cast_dropped_exactly`)
        located = (facts.op,) if facts is not None and facts.culprit is not None else ()  # an op that computes it from inputs alone
        return Signature(target, symptom_of(outcome), located, facts.dtype if located else "", fingerprint=fingerprints_of(outcome)[0], cause=cause, **where)
    return Signature(target, symptom_of(outcome), **where)


# Findings whose words name each output's op and what differs there (`op: what`): a metadata finding's layouts, an integer
# output's wrong values. One is minimised by what differs, whatever op makes the output left, and named again by that op.
NAMED_BY_OUTPUT = (Verdict.METADATA, Verdict.EXACT_MISMATCH)


def fingerprints_of(outcome: Outcome) -> list[str]:
    """The fingerprints an outcome shows: a crash's one, or one per output a finding named by its outputs lists (never empty)."""
    if outcome.verdict in NAMED_BY_OUTPUT:
        return metadata_fingerprints(outcome.detail) or [""]
    return [crash_fingerprint(outcome.detail)]


def _same_fingerprint(signature: Signature, outcome: Outcome) -> bool:
    """A crash's message, or what differs in a finding named by its outputs whatever op makes the output that shows it: a
    layout that an op upstream gives and pointwise ops downstream carry minimises to that op."""
    if signature.symptom not in {v.value for v in NAMED_BY_OUTPUT}:
        return signature.fingerprint in fingerprints_of(outcome)
    return metadata_kind(signature.fingerprint) in {metadata_kind(f) for f in fingerprints_of(outcome)}


def renamed(signature: Signature, outcome: Outcome) -> Signature:
    """A finding named by its outputs, its fingerprint named by the output that shows its kind of difference in
    `outcome` (a minimised case's, whose outputs may be made by other ops); any other signature as it is."""
    if outcome.verdict not in NAMED_BY_OUTPUT or signature.symptom != outcome.verdict.value:
        return signature
    kind = metadata_kind(signature.fingerprint)
    return replace(signature, fingerprint=next((f for f in fingerprints_of(outcome) if metadata_kind(f) == kind), signature.fingerprint))


def symptom_of(outcome: Outcome) -> str:
    if outcome.verdict not in (Verdict.CRASH_COMPILE, Verdict.CRASH_RUN):  # only a crash has an exception to name
        return outcome.verdict.value
    detail = outcome.detail.removeprefix("prepare raised ")
    found = _LEADING_NAME.match(detail) or _EXCEPTION.search(detail)
    return f"{outcome.verdict.value}:{found.group(1).rsplit('.', 1)[-1]}" if found else outcome.verdict.value


def severity(outcome: Outcome) -> float | None:
    """Bits lost against eager (inf for non-finite, and for a non-finite class lost: every bit); None where the symptom has no such measure.

    A gradient finding is measured as the rule that judges it measures (`oracle.gradient_bits_lost`, the `fused_backward`
    rule's bits where it recorded them), on the gradient its analysis flagged."""
    flagged = flagged_output(outcome)
    if flagged is None or not outcome.verdict.is_accuracy:
        return None
    if outcome.verdict in (Verdict.NONFINITE, Verdict.NONFINITE_CLASS):
        return math.inf
    facts = outcome.analysis
    if facts is None or facts.gradient_of is None:
        return bits_lost(flagged)
    if facts.fused_backward_bits is not None:
        return facts.fused_backward_bits
    gradient = next((o for o in outcome.outputs if o.index == facts.output and o.elements), flagged)
    return gradient_bits_lost(gradient)


def same_finding(signature: Signature, graph: Graph, outcome: Outcome) -> bool:
    """Does this outcome of `graph` show the finding `signature` describes (and not another one)?"""
    if symptom_of(outcome) != signature.symptom or outcome.at != signature.at:
        return False
    if signature.fingerprint and not _same_fingerprint(signature, outcome):
        return False  # another crash of the same class, or another kind of metadata difference: another cause
    if not signature.located or not outcome.verdict.is_accuracy:
        return True
    specs = infer_specs(graph)
    n_in = len(graph.inputs)
    backward = signature.cause == BACKWARD.name  # a gradient finding stays one, a forward finding stays forward
    for errors in outcome.outputs:
        gradient = errors.index >= len(graph.outputs)  # judged after the outputs: an input's gradient
        if errors.verdict != outcome.verdict.value or not errors.judged or gradient != backward:
            continue
        for k in range(len(graph.nodes)) if gradient else cone(graph, graph.outputs[errors.index]):
            if graph.nodes[k].op in signature.ops and specs[n_in + k].dtype == signature.dtype:
                return True
    return False
