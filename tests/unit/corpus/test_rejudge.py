"""A corpus written by an older numfuzz lists as one written today would: stored cases judged again by today's rules.

Each test writes a case as an older numfuzz stored it (its words, its signature, its facts, no
rules' version) and the same case as today's numfuzz stores it, and compares the listings.
"""

from __future__ import annotations

import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.grouping import group_corpus, listed
from numfuzz.corpus.known import load_known
from numfuzz.corpus.rejudge import mismatch_today
from numfuzz.corpus.store import save_case
from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import RULES_VERSION
from numfuzz.judge.signature import Signature
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec

THUNDER = "thunder:torchcompile"
PROVENANCE = {"torch": "2.9.1+cu128", "thunder": "0.2.6", "device": "cpu", "isa": "AVX512"}
# the committed finding thunder-autocast-fp32-policy-nll-loss-bf16: one nll_loss in a bf16 autocast region
NLL_LOSS = {
    "inputs": [{"dtype": "i64", "shape": [1, 1, 1]}, {"dtype": "bf16", "shape": [1, 1, 1, 1]}],
    "nodes": [{"args": [1, 0], "attrs": {"autocast": "bf16", "ignore_index": 0, "reduction": "sum"}, "op": "nll_loss"}],
    "outputs": [2],
}
FUSED_WHY = "fallback (no op's backward alone is less accurate on the target: the difference comes from how the backward is fused or partitioned)"


def _save(folder, graph: Graph, result: dict, run: RunSpec | str = THUNDER, signature: Signature | None = None, minimised: bool = False, grads=None):
    """A stored case with ones for inputs (zeros for integer ones) and the given recorded result, as a campaign saves one."""
    tensors = [torch.zeros(s.shape, dtype=torch.int64) if s.dtype == "i64" else torch.ones(s.shape, dtype=_torch(s.dtype)) for s in graph.inputs]
    case = Case.from_tensors(graph, [tensors], run, grads, provenance=dict(PROVENANCE), result=result)
    if signature is not None:
        case.extra["signature"] = signature.to_json()
    if minimised:
        case.extra["minimize"] = {"compiles": 3}
    return save_case(case, folder)


def _torch(dtype: str) -> torch.dtype:
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype]


def _old(outcome: Outcome) -> dict:
    """An outcome as numfuzz stored it before it recorded the rules' version (and, for a benign one, the oracle's verdict)."""
    data = outcome.to_json()
    data.pop("rules_version")
    return data


def _groups(folder, everything: bool = False) -> list:
    groups, problems = group_corpus(folder, load_known(), load_bounds([]))
    assert not problems
    return listed(groups, everything)


def _rows(folder, everything: bool = False) -> list[tuple]:
    return [(g.title, g.count, g.benign, sorted(g.verdicts), g.known.id if g.known else None, g.stale != "") for g in _groups(folder, everything)]


def _listing(cli, folder) -> list[str]:
    """The listing from the stored data alone (`--no-measure`: no finding runs again)."""
    result = cli("corpus", folder, "--no-measure")
    assert result.exit_code == 0, result.output
    return [" ".join(line.replace(str(folder), "DIR").split()) for line in result.output.splitlines()]


def test_an_old_mismatch_lists_in_todays_words_and_matches_its_known_issue(cli, tmp_path):
    graph = Graph.from_json(NLL_LOSS)
    old = Outcome(Verdict.MISMATCH, "target gave ['torch.bfloat16()'], eager ['torch.float32()']", compile_s=0.31)
    _save(tmp_path / "old" / "findings", graph, _old(old))
    _save(tmp_path / "today" / "findings", graph, Outcome(Verdict.MISMATCH, "nll_loss: bf16 where eager gives fp32", compile_s=0.31).to_json())
    (group,) = _groups(tmp_path / "old")
    assert group.known is not None and group.known.id == "numfuzz-thunder-autocast-policy", group.title
    assert _rows(tmp_path / "old") == _rows(tmp_path / "today")
    assert _listing(cli, tmp_path / "old") == _listing(cli, tmp_path / "today")


def test_an_old_mismatch_detail_is_reworded_value_by_value():
    graph = Graph((TensorSpec((4, 3), "fp32"), TensorSpec((4,), "i64")), (Node.make("nll_loss", [0, 1], reduction="none", ignore_index=-100),), (2,))
    assert mismatch_today(graph, "target gave ['torch.float32(2,)'], eager ['torch.float32(4,)']") == "nll_loss: shape (2,) where eager gives (4,)"
    assert mismatch_today(graph, "target gave ['tuple'], eager ['torch.float32(4,)']") == "nll_loss: tuple where eager gives a tensor"
    assert mismatch_today(graph, "target gave [], eager ['torch.float32(4,)']") == "0 values where eager gives 1"
    assert mismatch_today(graph, "nll_loss: bf16 where eager gives fp32") == "nll_loss: bf16 where eager gives fp32"  # today's words stay
    assert mismatch_today(graph, "target gave [oops], eager []") == "target gave [oops], eager []"  # words that do not parse stay


def test_an_old_minimised_crash_without_a_fingerprint_is_keyed_by_its_message_and_known(cli, tmp_path):
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("nan_to_num", [0], nan=0.0, posinf=1.0, neginf=-1.0),), (1,))
    crash = Outcome(Verdict.CRASH_COMPILE, "TypeError: nan_to_num() got some positional-only arguments passed as keyword arguments: 'nan, posinf, neginf'")
    # a minimised crash as numfuzz stored it before crashes had fingerprints: named by its ops only
    before = Signature(THUNDER, "crash_compile:TypeError", ("nan_to_num",), "")
    _save(tmp_path / "old" / "minimized", graph, _old(crash), signature=before, minimised=True)
    today = Signature(THUNDER, "crash_compile:TypeError", ("nan_to_num",), "", fingerprint=crash.detail)
    _save(tmp_path / "today" / "minimized", graph, crash.to_json(), signature=today, minimised=True)
    (group,) = _groups(tmp_path / "old")
    assert group.known is not None and group.known.id == "numfuzz-thunder-nan-to-num-keywords", group.title
    assert _rows(tmp_path / "old") == _rows(tmp_path / "today")
    assert _listing(cli, tmp_path / "old") == _listing(cli, tmp_path / "today")


def _grad_case() -> tuple[Graph, RunSpec, list]:
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("sin", [0]), Node.make("mul", [1, 0])), (2,))
    return graph, RunSpec(THUNDER, grad=True, samples=1), [[torch.ones(4)]]


def _errors(index: int, verdict: Verdict, target_ulp: float, eager_ulp: float = 1.0):
    from numfuzz.judge.oracle import OutputErrors

    return OutputErrors(index, "fp32", 4, eager_ulp, eager_ulp, target_ulp, target_ulp, 0, 0, 0, 0, 4, 0, 0, 0, verdict.value)


def _fused_gradient(target_ulp: float, measured: bool) -> Outcome:
    """A less accurate gradient no op's backward alone explains: `measured`, the bits it loses are recorded (as today)."""
    from numfuzz.judge.facts import Analysis

    analysis = {"version": 2, "output": 1, "cause": "backward", "evidence": ["..."], "op": "mul", "dtype": "fp32", "gradient_of": 0}
    analysis["culprit"] = {"node": 1, "op": "mul", "dtype": "fp32", "verdict": "", "located": FUSED_WHY}
    outputs = [_errors(0, Verdict.EQUAL, 1.0), _errors(1, Verdict.LESS_ACCURATE, target_ulp)]
    facts = Analysis.from_json(analysis)
    if measured:
        from numfuzz.judge.oracle import bits_lost

        facts.fused_backward_bits = bits_lost(outputs[1])
    return Outcome(Verdict.LESS_ACCURATE, outputs=outputs, analysis=facts)


def test_an_old_gradient_record_is_judged_by_the_fused_backward_rule_measured_from_its_stored_errors(cli, tmp_path):
    graph, run, grads = _grad_case()
    _save(tmp_path / "small" / "findings", graph, _old(_fused_gradient(3.0, measured=False)), run, grads=grads)  # 1.58 bits: how it fuses
    assert _groups(tmp_path / "small") == []
    (hidden,) = _groups(tmp_path / "small", everything=True)
    assert hidden.verdicts == {"within_rounding"} and not hidden.stale
    today = _fused_gradient(3.0, measured=True)
    from numfuzz.judge.rules import apply_rules

    apply_rules(today, load_bounds([]))
    assert today.verdict is Verdict.WITHIN_ROUNDING
    _save(tmp_path / "today" / "rounding", graph, today.to_json(), run, Signature(THUNDER, "within_rounding", ("mul",), "fp32"), grads=grads)
    assert _rows(tmp_path / "small", True) == _rows(tmp_path / "today", True)
    assert _listing(cli, tmp_path / "small")[-1] == _listing(cli, tmp_path / "today")[-1].replace("today", "small")
    # 3 bits is more than how a backward fuses: still a finding, new
    _save(tmp_path / "large" / "findings", graph, _old(_fused_gradient(8.0, measured=False)), run, grads=grads)
    (group,) = _groups(tmp_path / "large")
    assert group.verdicts == {"less_accurate"} and not group.stale


def _record(target: float, eager: float) -> dict:
    side = {"front": [[target, target]], "max_forward_ulp": target, "max_needed_ulp": target, "max_condition": 1.0}
    eager_side = {"front": [[eager, eager]], "max_forward_ulp": eager, "max_needed_ulp": eager, "max_condition": 1.0}
    return {"op": "exp", "dtype": "fp32", "device": "cpu", "n": 1, "bound": {}, "target": side, "eager": eager_side}


def _exp_finding(eager: float) -> Outcome:
    """A less accurate exp, 40 ULP off, its record in version 1's key (`backward_error`); eager `eager` ULP off."""
    from numfuzz.judge.facts import Analysis

    analysis = {"output": 0, "cause": "kernel_accuracy", "evidence": ["..."], "op": "exp", "dtype": "fp32", "backward_error": _record(40.0, eager)}
    analysis["culprit"] = {"node": 0, "op": "exp", "dtype": "fp32", "verdict": "less_accurate", "located": "single op"}
    return Outcome(Verdict.LESS_ACCURATE, outputs=[_errors(0, Verdict.LESS_ACCURATE, 40.0, max(eager, 0.5))], analysis=Analysis.from_json(analysis))


def test_an_old_finding_today_judged_eager_unstable_is_hidden_and_leaves_its_old_groups_count(tmp_path):
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("exp", [0]),), (1,))
    other = Graph((TensorSpec((3,), "fp32"),), (Node.make("exp", [0]),), (1,))
    kernel = Signature(THUNDER, "less_accurate", ("exp",), "fp32", "kernel_accuracy")
    # an older numfuzz filed both as findings of one group: it had no eager_fails_too rule
    _save(tmp_path / "old" / "findings", graph, _old(_exp_finding(0.5)), signature=kernel)
    _save(tmp_path / "old" / "findings", other, _old(_exp_finding(300.0)), signature=kernel)
    # today the unstable one is judged eager_unstable and kept apart, as the campaign's recorder files it
    _save(tmp_path / "today" / "findings", graph, _exp_finding(0.5).to_json(), signature=kernel)
    unstable = _exp_finding(300.0)
    from numfuzz.judge.rules import apply_rules

    apply_rules(unstable, load_bounds([]))
    assert unstable.verdict is Verdict.EAGER_UNSTABLE
    _save(tmp_path / "today" / "rounding", other, unstable.to_json(), signature=Signature(THUNDER, "eager_unstable", ("exp",), "fp32"))
    (group,) = _groups(tmp_path / "old")
    assert group.count == 1 and group.verdicts == {"less_accurate"}
    assert _rows(tmp_path / "old", True) == _rows(tmp_path / "today", True)


def _position(version: int) -> dict:
    """A position-dependent tanh as version 1 of the analysis stored it: its parting in words only, eager's error there not measured."""
    parting = "the two positions first part at `tanh` (fp32), whose compiled values are within 40 ULP of the op applied exactly to their own inputs"
    analysis = {"output": 0, "cause": "position_rounding", "evidence": [parting], "op": "tanh", "dtype": "fp32"}
    analysis["culprit"] = {"node": 0, "op": "tanh", "dtype": "fp32", "verdict": "position_dependent", "located": "probe"}
    detail = "output 0: equal inputs at elements 0 and 8 give different values"
    result = {"verdict": "position_dependent", "detail": detail, "outputs": [], "compile_s": 0.1, "run_s": 0.0, "analysis": analysis}
    return {**result, "rules_version": version} if version else result


def test_an_old_record_without_a_fact_a_rule_reads_is_stale_not_new(cli, tmp_path):
    graph = Graph((TensorSpec((16,), "fp32"),), (Node.make("tanh", [0]),), (1,))
    _save(tmp_path / "old" / "findings", graph, _position(0))
    (group,) = _groups(tmp_path / "old")
    assert "eager's error where the positions part" in group.stale and group.analysis.cause == "position_parting"
    lines = _listing(cli, tmp_path / "old")
    assert "stale: replay to judge" in lines[1] and "new" not in lines[1]
    assert lines[-1] == "1 finding in 1 group: 0 new, 0 known, 1 stale"
    # recorded by a numfuzz whose rules read what it stores: the same facts are a judgement, and it is new
    _save(tmp_path / "today" / "findings", graph, _position(RULES_VERSION))
    (group,) = _groups(tmp_path / "today")
    assert not group.stale
    assert _listing(cli, tmp_path / "today")[-1] == "1 finding in 1 group: 1 new, 0 known"
    # no analysis at all, as today's leaves a position it cannot part: nothing a rule could read, so nothing is stale
    unparted = {k: v for k, v in _position(0).items() if k != "analysis"}
    _save(tmp_path / "unparted" / "findings", graph, unparted)
    assert _listing(cli, tmp_path / "unparted")[-1] == "1 finding in 1 group: 1 new, 0 known"


def test_a_stored_outcome_records_the_rules_version_and_an_older_one_reads_as_0(tmp_path):
    data = Outcome(Verdict.LESS_ACCURATE).to_json()
    assert data["rules_version"] == RULES_VERSION and Outcome.from_json(data).rules_version == RULES_VERSION
    data.pop("rules_version")
    assert Outcome.from_json(data).rules_version == 0


def _mul_finding(node: int) -> dict:
    """A bf16 mul 3 ULP off whose value is the exact product of inputs moved 0.4 ULP, as version 1 stored its record."""
    side = {"front": [[3.0, 0.4]], "max_forward_ulp": 3.0, "max_needed_ulp": 0.4, "max_condition": 1.0}
    record = {"op": "mul", "dtype": "bf16", "device": "cpu", "n": 1, "bound": {}, "suffix": False, "target": side, "eager": {**side, "front": [[0.5, 0.0]]}}
    analysis = {"output": 0, "cause": "kernel_accuracy", "evidence": ["..."], "op": "mul", "dtype": "bf16", "backward_error": record}
    analysis["culprit"] = {"node": node, "op": "mul", "dtype": "bf16", "verdict": "less_accurate", "located": "probe"}
    errors = _errors(0, Verdict.LESS_ACCURATE, 3.0, 0.5)
    return {"verdict": "less_accurate", "detail": "", "outputs": [errors.to_json()], "compile_s": 0.1, "run_s": 0.0, "analysis": analysis}


def test_an_old_record_is_judged_with_the_allowance_for_narrow_inputs_the_program_made(tmp_path):
    # exp's bf16 value feeds mul: a fused kernel may read it before its rounding, which today's record says and the bound allows
    made = Graph((TensorSpec((4,), "bf16"),), (Node.make("exp", [0]), Node.make("mul", [1, 1])), (2,))
    _save(tmp_path / "made" / "findings", made, _mul_finding(1))
    assert _groups(tmp_path / "made") == []
    (hidden,) = _groups(tmp_path / "made", everything=True)
    assert hidden.verdicts == {"within_rounding"} and hidden.analysis.rounding_error.unrounded_inputs
    # the program's own inputs are rounded before any kernel reads them: 0.4 ULP of input move is beyond mul's bound
    given = Graph((TensorSpec((4,), "bf16"), TensorSpec((4,), "bf16")), (Node.make("mul", [0, 1]),), (2,))
    _save(tmp_path / "given" / "findings", given, _mul_finding(0))
    (group,) = _groups(tmp_path / "given")
    assert group.verdicts == {"less_accurate"} and not group.stale


def test_corpus_replay_compares_with_the_recorded_outcome_as_today_judges_it(tmp_path):
    from numfuzz.corpus.replay import replay_case

    graph, run, grads = _grad_case()
    path = _save(tmp_path / "findings", graph, _old(_fused_gradient(3.0, measured=False)), run, grads=grads)
    today = _fused_gradient(3.0, measured=True)
    from numfuzz.judge.rules import apply_rules

    apply_rules(today, load_bounds([]))
    replayed = replay_case(path, lambda case: today, {"device": "cpu"})
    assert replayed.recorded == "within_rounding" and replayed.now == "within_rounding" and replayed.reproduces
