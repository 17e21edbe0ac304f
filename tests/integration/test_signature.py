"""Signatures (what a finding is about) and dedupe of a corpus by them."""

from __future__ import annotations

import json

import pytest
import torch
from planted_findings import found, minimized

from numfuzz.corpus.case import Case
from numfuzz.corpus.grouping import group_corpus
from numfuzz.corpus.store import save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.signature import Signature, flagged_output, locate, same_finding, severity, symptom_of
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


def test_locate_exposes_the_cone_and_takes_the_first_flagged_node():
    outcome = Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "less_accurate", dtype="bf16"), errors(1, "equal")])
    probes = []

    def run(graph: Graph) -> Outcome:
        probes.append(graph)
        # cone of t2 is exp, cast, neg: say the cast is where the target first goes wrong
        return Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "equal"), errors(1, "less_accurate", dtype="bf16"), errors(2, "less_accurate", dtype="bf16")])

    assert locate(GRAPH, outcome, run) == (("cast",), "bf16")
    assert probes[0].outputs == (1, 2, 3)
    # When exposing the intermediates hides the bug, the flagged output's own op stands in.
    assert locate(GRAPH, outcome, lambda g: Outcome(Verdict.EQUAL, outputs=[errors(i, "equal") for i in range(3)])) == (("neg",), "bf16")
    # A crash is not located here; minimisation names its ops.
    assert locate(GRAPH, Outcome(Verdict.CRASH_COMPILE, "TypeError: x"), run) == ((), "")


def test_same_finding_guards_against_drifting_to_another_bug():
    sig = Signature("t", "less_accurate", ("cast",), "bf16")
    flagged = Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "less_accurate", dtype="bf16"), errors(1, "equal")])
    assert same_finding(sig, GRAPH, flagged)
    side = Outcome(Verdict.LESS_ACCURATE, outputs=[errors(0, "equal", dtype="bf16"), errors(1, "less_accurate")])
    assert not same_finding(sig, GRAPH, side)  # sin's cone holds no cast: another bug
    assert not same_finding(Signature("t", "less_accurate", ("cast",), "fp16"), GRAPH, flagged)
    assert not same_finding(Signature("t", "nonfinite", ("cast",), "bf16"), GRAPH, flagged)
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


def test_group_corpus_folds_by_signature(corpus_dir):
    root, smallest, signature = corpus_dir
    groups, problems = group_corpus(root)
    assert len(problems) == 1 and "torn.json" in problems[0]
    by_sig = {g.signature: g for g in groups}
    expm1 = by_sig[signature]
    assert expm1.count == 2  # the original and its minimised version count once
    assert expm1.smallest == smallest and expm1.severity is not None and expm1.severity > 0
    (unlocated,) = [g for g in groups if g.signature.target == "thunder:bug_sum"]
    assert unlocated.count == 1 and unlocated.signature.ops == ()


def test_cli_corpus_lists_groups(cli, corpus_dir):
    root, smallest, signature = corpus_dir
    result = cli("corpus", root)
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "torn.json" in result.output
    line = next(line for line in result.output.splitlines() if signature.text() in line)
    assert line.split()[0] == "2" and str(smallest) in line
    assert "3 findings, 2 signatures" in result.output
    as_json = cli("corpus", root, "--json")
    rows = json.loads(as_json.output[as_json.output.index("[") :])
    assert {r["count"] for r in rows} == {1, 2}
    assert cli("corpus", root / "nope").exit_code == 2
