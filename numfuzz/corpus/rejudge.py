"""A stored case as today's numfuzz judges it: its outcome and signature derived again from what the case stores.

A corpus is listed from its stored data (`corpus.grouping`), and users keep corpora for months: a
case must list as one written today would. So nothing an older numfuzz derived is taken as it
stored it where today's code can derive it again from the stored data:

* the verdict is today's rules' (`judge.rules.final_verdict`) on the stored oracle verdict and facts;
* a fact a rule reads that an older numfuzz did not record but that the stored data gives is
  measured again here (the bits an unlocated gradient loses and a gradient's largest absolute errors,
  from the stored output errors; whether a culprit's narrow inputs are the program's own values, from
  the program);
* a mismatch's words are today's (`judge.output_words.mismatch_words`), from the types and shapes the
  old words listed;
* the signature is today's `signature_of` on that outcome, named by the ops a minimised case keeps,
  as the minimiser names them; a benign case's is the recorder's.

Where a rule needs a fact the stored case lacks and cannot give, `judge.rules.undecided` says which:
the finding is not judged new on a guess (`numfuzz corpus` shows "stale: replay to judge").
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import torch

from numfuzz.corpus.case import Case, recorded_outcome, stored_signature
from numfuzz.judge.bounds import Bounds
from numfuzz.judge.evidence import inputs_made_narrow
from numfuzz.judge.execute import Outcome
from numfuzz.judge.output_words import Described, mismatch_words, short_dtype
from numfuzz.judge.facts import RULES_VERSION
from numfuzz.judge.analysis import computed_from_inputs
from numfuzz.judge.eager_noise import eager_noise
from numfuzz.judge.gradient_analysis import gradient_max_abs
from numfuzz.judge.oracle import bits_lost
from numfuzz.judge.rules import FUSED_BACKWARD_LOCATED, final_verdict
from numfuzz.judge.signature import Signature, mode_label, signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph

# How numfuzz worded a mismatch before it named the ops: `target gave ['torch.bfloat16(3,)'], eager ['torch.float32(3,)']`
_OLD_MISMATCH = re.compile(r"^target gave (\[.*\]), eager (\[.*\])$")
_OLD_VALUE = re.compile(r"^torch\.(\w+)(\(.*\))$")


def current_outcome(case: Case, bounds: Bounds) -> Outcome:
    """The stored outcome with today's words, the facts today's rules read where the stored data gives them, and today's verdict under `bounds`."""
    outcome = recorded_outcome(case)
    if outcome.verdict is Verdict.MISMATCH:
        outcome.detail = mismatch_today(case.graph, outcome.detail)
    if outcome.rules_version < RULES_VERSION and outcome.analysis is not None:
        _measure_again(case.graph, outcome)
    if outcome.oracle is Verdict.EXACT_MISMATCH and outcome.analysis is None:  # its op, from the stored program alone
        outcome.analysis = computed_from_inputs(case.graph, outcome)
    judged = final_verdict(outcome.oracle, outcome.analysis, bounds)
    outcome.verdict, outcome.rule = judged.verdict, judged.rule
    return outcome


def current_signature(case: Case, outcome: Outcome) -> Signature:
    """What today's numfuzz files `case` under, given its `current_outcome`: the recorder's signature for a benign case,
    else `signature_of`, its ops named as the minimiser names them where the outcome does not locate it."""
    facts, where = outcome.analysis, {"mode": mode_label(case.run, case.graph), "at": outcome.at}
    if outcome.verdict.is_listed_benign and facts is not None and facts.op:  # its own group, as the campaign's recorder files it
        return Signature(case.target, outcome.verdict.value, (facts.op,), facts.dtype, **where)
    signature = signature_of(case.target, outcome, case.run, case.graph)
    if signature.located:
        return signature
    stored = stored_signature(case)
    if stored is not None and stored.located:  # located by an analysis the case does not store (an old schema), or the ops a minimiser named
        keep_cause = outcome.verdict.is_accuracy and stored.symptom == signature.symptom
        return replace(signature, ops=stored.ops, dtype=stored.dtype, cause=stored.cause if keep_cause else signature.cause)
    if isinstance(case.extra.get("minimize"), dict):  # as the minimiser names a finding it does not locate: by the ops left
        return replace(signature, ops=tuple(sorted({n.op for n in case.graph.nodes})), dtype="")
    return signature


def mismatch_today(graph: Graph, detail: str) -> str:
    """A stored mismatch's detail in today's words; as stored where it is not in the old words, or they do not parse."""
    found = _OLD_MISMATCH.match(detail.strip())
    if found is None:
        return detail
    try:
        got, eager = (_described(text) for text in found.groups())
    except (ValueError, SyntaxError):
        return detail
    if len(got) == len(eager) and any(e[1] is None for e in eager):
        return detail  # eager's values are tensors: this is not what the old words said
    return mismatch_words(graph, eager, got) or detail


def _described(listed: str) -> list[Described]:
    """The old words' list of values: `torch.bfloat16(3, 4)` a tensor, anything else a value of that type."""
    values = ast.literal_eval(listed)
    if not isinstance(values, list):
        raise ValueError("not a list")
    described = []
    for text in values:
        value = _OLD_VALUE.match(str(text))
        if value is None:
            described.append((str(text), None))
            continue
        shape = ast.literal_eval(value.group(2))
        described.append((_short(value.group(1)), tuple(int(n) for n in (shape if isinstance(shape, tuple) else (shape,)))))
    return described


def _short(torch_name: str) -> str:
    """`bfloat16` as today's words name it (`bf16`)."""
    dtype = getattr(torch, torch_name, None)
    return short_dtype(dtype) if isinstance(dtype, torch.dtype) else torch_name


def _measure_again(graph: Graph, outcome: Outcome) -> None:
    """The facts an older numfuzz did not record where the stored data gives them (in place)."""
    facts = outcome.analysis
    culprit = facts.culprit
    unlocated_gradient = facts.gradient_of is not None and culprit is not None and culprit.located.startswith(FUSED_BACKWARD_LOCATED)
    if unlocated_gradient and facts.fused_backward_bits is None and outcome.oracle is Verdict.LESS_ACCURATE:
        facts.fused_backward_bits = next((bits_lost(o) for o in outcome.outputs if o.index == facts.output), None)
    if facts.gradient_of is not None and facts.gradient_max_abs is None:
        facts.gradient_max_abs = gradient_max_abs(outcome.outputs, facts.output)
    if facts.eager_noise is None:  # from outputs recorded with their scale
        facts.eager_noise = eager_noise(outcome.outputs, facts.output)
    record = facts.rounding_error
    value_record = record is not None and not record.backward and not record.suffix and not record.error and not record.unrounded_inputs
    if value_record and culprit is not None and 0 <= culprit.node < len(graph.nodes) and inputs_made_narrow(graph, culprit.node):
        facts.rounding_error = replace(record, unrounded_inputs=True, stored={**record.stored, "unrounded_inputs": True})
