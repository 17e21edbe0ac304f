"""Signatures (what a finding is about) and dedupe of a corpus by them."""

from __future__ import annotations

import json

import pytest
import torch
from planted_findings import found, minimized

from numfuzz.corpus.case import Case
from numfuzz.corpus.group_key import GroupKey
from numfuzz.corpus.grouping import group_corpus
from numfuzz.corpus.store import save_case
from numfuzz.judge.execute import Outcome, flagged_output
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.signature import Signature, same_finding, severity, symptom_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec


def errors(index: int, verdict: str, eager: float = 0.5, target: float = 0.5, dtype: str = "fp32") -> OutputErrors:
    return OutputErrors(index, dtype, 8, eager, 0.2, target, 0.3, 0, 0, 0, 0, 3, 0, 0, 1, verdict)


# x0 -> exp (fp32) -> cast bf16 -> neg; plus a side output sin(x0)
GRAPH = Graph(
    (TensorSpec((4,), "fp32"),),
    (Node.make("exp", [0]), Node.make("cast", [1], dtype="bf16"), Node.make("neg", [2]), Node.make("sin", [0])),
    (3, 4),
)


def test_symptom_names_the_exception_of_a_crash():
    assert symptom_of(Outcome(Verdict.CRASH_COMPILE, "prepare raised TypeError: bad")) == "crash_compile:TypeError"
    assert symptom_of(Outcome(Verdict.CRASH_RUN, "torch._dynamo.exc.BackendCompilerFailed: x")) == "crash_run:BackendCompilerFailed"
    assert symptom_of(Outcome(Verdict.CRASH_RUN, "segfault-ish, no class")) == "crash_run"
    assert symptom_of(Outcome(Verdict.LESS_ACCURATE)) == "less_accurate"


def test_flagged_output_is_the_worst_one_with_the_verdict():
    outcome = Outcome(
        Verdict.LESS_ACCURATE, outputs=[errors(0, "less_accurate", target=4), errors(1, "less_accurate", target=64), errors(2, "equal", target=999)]
    )
    assert flagged_output(outcome).index == 1
    assert severity(outcome) == pytest.approx(7.0)  # log2(64 / 0.5)
    assert severity(Outcome(Verdict.NONFINITE, outputs=[errors(0, "nonfinite")])) == float("inf")
    assert severity(Outcome(Verdict.CRASH_RUN, "x")) is None


def test_group_keys_fold_root_causes():
    dropped_bf16 = Signature("inductor", "less_accurate", ("cast",), "bf16", "cast_dropped")
    dropped_fp16 = Signature("inductor", "nonfinite", ("cast",), "fp16", "cast_dropped")
    assert dropped_bf16.group_key() == dropped_fp16.group_key()  # every dropped cast on a target: one group
    assert dropped_bf16.group_key() != Signature("thunder:torchcompile", "less_accurate", ("cast",), "bf16", "cast_dropped").group_key()
    cancels = Signature("inductor", "less_accurate", ("gelu",), "bf16", "cancellation")
    assert cancels.group_key() == Signature("inductor", "nonfinite", ("gelu",), "bf16", "cancellation").group_key()  # whatever the symptom
    assert cancels.group_key() == Signature("inductor", "less_accurate", ("gelu",), "fp16", "cancellation").group_key()  # whatever the dtype
    assert cancels.group_key() != Signature("inductor", "less_accurate", ("gelu",), "bf16", "kernel_accuracy").group_key()
    crash = Signature("inductor", "crash_compile:TypeError", ("exp",))
    assert crash.group_key() != Signature("inductor", "crash_compile:KeyError", ("exp",)).group_key()
    assert Signature.from_json(cancels.to_json()) == cancels
    assert GroupKey.of(dropped_bf16, None, None, [], {}).title() == "inductor | explicit cast dropped"


def test_same_finding_guards_against_drifting_to_another_bug():
    sig = Signature("t", "less_accurate", ("cast",), "bf16")
    flagged = Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "less_accurate", dtype="bf16"), errors(1, "equal")])
    assert same_finding(sig, GRAPH, flagged)
    side = Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "equal", dtype="bf16"), errors(1, "less_accurate")])
    assert not same_finding(sig, GRAPH, side)  # sin's cone holds no cast: another bug
    assert not same_finding(Signature("t", "less_accurate", ("cast",), "fp16"), GRAPH, flagged)
    assert not same_finding(Signature("t", "nonfinite", ("cast",), "bf16"), GRAPH, flagged)  # an overflow is no inaccuracy
    assert not same_finding(sig, GRAPH, Outcome(Verdict.CRASH_RUN, "RuntimeError: no"))
    crash = Signature("t", "crash_compile:TypeError")
    assert same_finding(crash, GRAPH, Outcome(Verdict.CRASH_COMPILE, "prepare raised TypeError: no"))
    assert not same_finding(crash, GRAPH, Outcome(Verdict.CRASH_COMPILE, "prepare raised KeyError: no"))


def _other_finding(case: Case, value: float) -> Case:
    """Another finding with the same signature: other input values, its own original."""
    spec = case.graph.inputs[0]
    tensor = torch.full(spec.shape, value, dtype=case.tensors()[0][0].dtype)
    other = Case.from_tensors(case.graph, [[tensor]], case.target, provenance=dict(case.provenance), result=case.result)
    other.extra = {**case.extra, "original": {"hash": "0" * 64}}
    return other


@pytest.fixture
def corpus_dir(tmp_path):
    findings, small = tmp_path / "findings", tmp_path / "minimized"
    original, result = found("bug_expm1"), minimized("bug_expm1")
    save_case(original, findings)
    smallest = save_case(result.case, small)
    save_case(_other_finding(result.case, 2.0**-6), small)
    save_case(found("bug_sum"), findings)
    (findings / "torn.json").write_text('{"schema": 1, "gra')
    (tmp_path / "journal.json").write_text("{}")  # a campaign's own files are not cases
    return tmp_path, smallest, result.signature


@pytest.mark.thunder  # the planted executors are Thunder's
def test_group_corpus_folds_by_root_cause(corpus_dir):
    root, smallest, signature = corpus_dir
    groups, problems = group_corpus(root)
    assert len(problems) == 1 and "torn.json" in problems[0]
    by_key = {g.signature.group_key(): g for g in groups}
    expm1 = by_key[signature.group_key()]
    assert signature.cause == "cancellation" and expm1.analysis.cause == "cancellation"
    assert expm1.count == 2  # the original and its minimised version count once
    assert expm1.smallest == smallest and expm1.severity is not None and expm1.severity > 0 and expm1.minimized
    assert expm1.known is None  # a planted executor is no upstream issue
    (summed,) = [g for g in groups if g.signature.target == "thunder:bug_sum"]
    assert summed.count == 1 and summed.signature.ops == ("sum",) and summed.signature.cause == "low_precision" and not summed.minimized


@pytest.mark.thunder
def test_cli_corpus_lists_groups(cli, corpus_dir):
    root, smallest, signature = corpus_dir
    result = cli("corpus", root)
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "torn.json" in result.output
    line = next(line for line in result.output.splitlines() if GroupKey.of(signature, None, None, [], {}).title() in line)
    assert line.split()[0] == "2" and str(smallest) in line and " new " in line
    assert "3 findings in 2 groups: 2 new, 0 known" in result.output
    as_json = cli("corpus", root, "--json")
    rows = json.loads(as_json.output[as_json.output.index("[") :])
    assert {r["count"] for r in rows} == {1, 2}
    assert {r["cause"] for r in rows} == {"cancellation", "low_precision"}
    assert cli("corpus", root / "nope").exit_code == 2
