"""A model's outputs and gradients judged by numfuzz's one verdict: each output's oracle verdict, then `judge.rules.final_verdict`.

Each judged output (an output of the model or of a module, a training step's loss or a gradient)
gets the facts the model path can establish, as the campaign's analysis would state them
(`judge.facts.Analysis`): its dtype, whether it is a gradient and how many bits it loses (read by
the `fused_backward` rule: a model's backward is not cut per op, so every gradient is one no op was
found in), and the cause `cast_dropped` where the target is no less accurate than eager against the
program with the model's casts as no-ops (`kept_cause` keeps that a finding whatever the bound).
The model's verdict is the most severe of its outputs' final verdicts; a known upstream issue is
matched on the finding's signature (`judge.signature.signature_of`), as the corpus matches them.

The oracle's verdict of one model output counts an output less accurate only in ULPs of its
near-zero elements, and no bit worse at the output's scale (`bits_lost`), as equal: without an op
located (a module is not cut per op), a sum or a normalisation that cancels to near 0 differs
there in either direction, and no rule has a culprit's bound to judge it by.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.cause import CAST_DROPPED
from numfuzz.judge.eager_noise import eager_noise
from numfuzz.judge.execute import Outcome, crash_verdict, one_line
from numfuzz.judge.facts import Analysis
from numfuzz.judge.gradient_analysis import gradient_max_abs
from numfuzz.judge.oracle import SEVERITY, OutputErrors, bits_lost
from numfuzz.judge.refusal import refusal_of
from numfuzz.judge.rules import Judgement, final_verdict
from numfuzz.judge.signature import signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.model.state import GlobalState


@dataclass
class Judged:
    """A model's (or a module's, or a training step's) verdict, with each output's rule where one judged it."""

    verdict: Verdict
    outputs: list[OutputErrors] = field(default_factory=list)
    rules: dict[int, Judgement] = field(default_factory=dict)  # output index -> the rule that gave its verdict (only where one did)
    detail: str = ""  # what the target raised, or the global modes it left unlike eager (`state`)
    cause: str = ""
    facts: Analysis | None = None  # the flagged output's facts, for the signature
    capture: object = None  # the reference's capture record (`reference.Reference`)


def output_oracle(errors: OutputErrors) -> Verdict:
    """The oracle's verdict of one model output (see the module: near-zero elements alone make no finding)."""
    verdict = Verdict(errors.verdict)
    return Verdict.EQUAL if verdict is Verdict.LESS_ACCURATE and bits_lost(errors) == 0.0 else verdict


def output_facts(errors: OutputErrors, first_gradient: int | None, cause: str = "") -> Analysis:
    """What the model path knows of one output, stated as the campaign's analysis states it."""
    gradient = first_gradient is not None and errors.index >= first_gradient
    return Analysis(
        output=errors.index,
        cause=cause,
        op="cast" if cause == CAST_DROPPED.name else "",  # a dropped cast is filed under the cast, as a program's is
        dtype=errors.dtype,
        gradient_of=errors.index - first_gradient if gradient else None,
        fused_backward_bits=bits_lost(errors) if gradient else None,
        gradient_max_abs=gradient_max_abs([errors], errors.index) if gradient else None,
        eager_noise=eager_noise([errors], errors.index),
    )


def _most_severe(verdicts: list[Verdict]) -> Verdict:
    if not verdicts:
        return Verdict.INVALID
    findings = [v for v in SEVERITY if v.is_finding]  # the oracle's findings first, then the benign the rules name, then the clean
    ranked = [*findings, Verdict.WITHIN_ROUNDING, Verdict.EAGER_UNSTABLE, Verdict.SUBGRADIENT, Verdict.AMPLIFIED, *(v for v in SEVERITY if not v.is_finding)]
    return next((v for v in ranked if v in verdicts), verdicts[0])


def judge_outputs_by_rules(
    outputs: list[OutputErrors], first_gradient: int | None, casts_explain: Callable[[list[int]], bool], bounds: Bounds | None = None
) -> Judged:
    """Each output's oracle verdict through `final_verdict`; where outputs stay less accurate and `casts_explain(their
    indices)` says the target is no less accurate at them against the program with its casts as no-ops, they are judged
    again with the cause `cast_dropped`. The model's verdict is the most severe over its outputs."""
    bounds = bounds or active_bounds()
    counted = [o for o in outputs if o.judged]
    judged = {o.index: final_verdict(output_oracle(o), output_facts(o, first_gradient), bounds) for o in counted}
    worse = [o.index for o in counted if judged[o.index].verdict is Verdict.LESS_ACCURATE]
    cause = CAST_DROPPED.name if worse and casts_explain(worse) else ""
    if cause:
        judged.update({o.index: final_verdict(output_oracle(o), output_facts(o, first_gradient, cause), bounds) for o in counted if o.index in worse})
    verdict = _most_severe([j.verdict for j in judged.values()])
    flagged = next((o for o in counted if judged[o.index].verdict is verdict), None)
    facts = output_facts(flagged, first_gradient, cause if flagged is not None and flagged.index in worse else "") if flagged is not None else None
    shown = [replace(o, verdict=judged[o.index].verdict.value) if o.index in judged else o for o in outputs]
    return Judged(verdict, shown, {k: j for k, j in judged.items() if j.rule}, cause=cause if verdict is Verdict.LESS_ACCURATE else "", facts=facts)


def crashed(exc: BaseException, first_call: bool, own: tuple[str, ...] = ()) -> Judged:
    """The target raised: its own refusal where raised in its `own` code and saying so (`judge.refusal`: unsupported, a
    status), else a crash while compiling (its first call compiles) or on a later call; out of memory is its own symptom.
    An exception with no message (a bare `assert`) is said with the function that raised it, which tells one from another."""
    refusal = refusal_of(exc, own)
    if refusal is not None:
        return Judged(Verdict.UNSUPPORTED, detail=refusal.detail())
    return Judged(crash_verdict(exc, Verdict.CRASH_COMPILE if first_call else Verdict.CRASH_RUN), detail=_said(exc))


def _said(exc: BaseException) -> str:
    if str(exc).strip():
        return one_line(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{type(exc).__name__}: (no message; raised in {frames[-1].name}, {Path(frames[-1].filename).name})" if frames else one_line(exc)


def known_issue(target: str, judged: Judged, device: str, mode: str = "") -> str:
    """The id of the known upstream issue a finding's signature matches (`corpus.known`), or ""; `mode` as a campaign's
    signature names it (`autocast=bf16` for a model under autocast), so a rule on or off autocast reads it. A crash names
    no op: the ops the model calls (its reference's capture) stand in for its program's, as a lost worker's do."""
    if not judged.verdict.is_finding:
        return ""
    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.environment import provenance
    from numfuzz.model.coverage import called_ops

    outcome = Outcome(judged.verdict, judged.detail, judged.outputs, analysis=judged.facts, oracle=judged.verdict)
    nodes = getattr(judged.capture, "nodes", None)
    called = called_ops(nodes) if nodes is not None and not judged.verdict.is_accuracy else frozenset()
    issue = match_known(load_known(), replace(signature_of(target, outcome), mode=mode), provenance(device), upstream=called)
    return issue.id if issue is not None else ""


def region_known(region: Any, target: str, device: str, mode: str = "") -> str:
    """The known issue that explains a model's region (`region_check.RegionCheck`) where it is a finding, matched as a
    campaign's program is (`corpus.group_key.GroupKey`: its located op, dtype, cause and mechanism), or ""."""
    if region is None or not region.result.is_finding:
        return ""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.corpus.known import load_known
    from numfuzz.environment import provenance

    outcome = region.result.outcome
    signature = replace(signature_of(target, outcome), mode=mode)
    key = GroupKey.of(signature, region.region.graph, outcome.analysis, load_known(), provenance(device))
    return key.known.id if key.known is not None else ""


def state_left(eager: list[GlobalState], target: list[GlobalState]) -> Judged | None:
    """A `state` finding where a compiled call leaves PyTorch's global modes other than eager's same call leaves them
    (`model.state.global_state`, noted per call), said for the first such call; None where every call leaves them alike."""
    for k, (expected, got) in enumerate(zip(eager, target)):
        differ = [f"{mode} {got[mode]} where eager leaves it {value}" for mode, value in expected.items() if got.get(mode) != value]
        if differ:
            return Judged(Verdict.STATE, detail=f"after call {k + 1}, the compiled model leaves " + "; ".join(differ))
    return None


def run_target(run: Callable[[list], list[torch.Tensor]], rows: list[list], own: tuple[str, ...] = ()) -> list[list[torch.Tensor]] | Judged:
    """`run` (the compiled model) on every row; where it raises, the crash or refusal it is (`crashed`, the target's
    `own` code): at the first row while compiling."""
    got = []
    for k, row in enumerate(rows):
        try:
            got.append(run(row))
        except Exception as exc:  # the target's failure is the finding, never numfuzz's
            return crashed(exc, first_call=k == 0, own=own)
    return got
