"""Regression statements and upstream fields: what they mean, how a replay reads them, and bad ones fail in one line."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, save_finding

from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.regression import reproduces, statement, upstream
from numfuzz.corpus.replay import replay_case
from numfuzz.corpus.store import load_case, save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec

UPSTREAM = sorted((ROOT / "corpus" / "upstream").glob("*.json"))
HERE_29 = {"torch": "2.9.1+cu128", "device": "cpu", "isa": "AVX512", "thunder": "0.2.6"}
HERE_215 = {"torch": "2.15.0+cu132", "device": "cpu", "isa": "AVX512", "thunder": "absent"}
GRAPH = Graph((TensorSpec((4,), "fp32"),), (Node.make("exp", [0]),), (1,))


def _stated(tmp_path, verdict: Verdict | None, reproduces_field: object, upstream_field: object = None):
    """A case file recorded with `verdict` (None: never run), with the given fields."""
    import torch

    result = None if verdict is None else Outcome(verdict).to_json()
    case = Case.from_tensors(GRAPH, [[torch.ones(4)]], "inductor", result=result)
    case.extra = {"reproduces": reproduces_field}
    if upstream_field is not None:
        case.extra["upstream"] = upstream_field
    return save_case(case, tmp_path)


def test_every_committed_upstream_case_names_its_issue_and_states_where_it_reproduces():
    assert len(UPSTREAM) >= 10
    for path in UPSTREAM:
        case = load_case(path)
        source, stated = upstream(case), statement(case)
        assert source is not None and source.issue.startswith("pytorch#") and source.url.endswith(source.issue.split("#")[1]), path.name
        assert stated is not None and stated.device in ("cpu", "cuda") and stated.why, path.name
        assert (case.result is None) == (stated.device == "cuda"), f"{path.name}: CPU cases are measured, CUDA ones not yet run"


def test_a_finding_reproduces_as_any_finding_and_a_benign_verdict_only_as_itself():
    assert reproduces(Verdict.LESS_ACCURATE, Verdict.NONFINITE) and not reproduces(Verdict.NONFINITE, Verdict.EQUAL)
    assert reproduces(None, Verdict.LESS_ACCURATE) and not reproduces(None, Verdict.EQUAL)  # never run: a finding is expected
    assert reproduces(Verdict.MORE_ACCURATE, Verdict.MORE_ACCURATE)
    assert not reproduces(Verdict.MORE_ACCURATE, Verdict.EQUAL) and not reproduces(Verdict.AMPLIFIED, Verdict.LESS_ACCURATE)


def test_a_benign_case_is_as_stated_only_with_its_recorded_verdict_inside_the_range(tmp_path):
    path = _stated(tmp_path, Verdict.MORE_ACCURATE, {"torch": "<2.15", "device": "cpu"}, {"issue": "pytorch#183605"})
    inside = replay_case(path, lambda case: Outcome(Verdict.MORE_ACCURATE), HERE_29)
    assert inside.as_stated and inside.expected and inside.upstream == "pytorch#183605" and inside.expectation == "expected more_accurate here"
    assert not replay_case(path, lambda case: Outcome(Verdict.EQUAL), HERE_29).as_stated
    fixed = replay_case(path, lambda case: Outcome(Verdict.EQUAL), HERE_215)
    assert fixed.as_stated and fixed.expectation == "expected not more_accurate here"
    assert not replay_case(path, lambda case: Outcome(Verdict.MORE_ACCURATE), HERE_215).as_stated


def test_a_case_for_another_device_is_skipped_with_the_reason_and_never_run(tmp_path):
    path = _stated(tmp_path, None, {"torch": ">=2.9", "device": "cuda"}, {"issue": "pytorch#185480", "url": "https://github.com/pytorch/pytorch/issues/185480"})

    def must_not_run(case):
        raise AssertionError("a cuda case must not run on cpu")

    skipped = replay_case(path, must_not_run, HERE_29)
    assert skipped.now == "skipped" and skipped.note == "needs cuda" and skipped.recorded == "not run" and skipped.as_stated
    on_cuda = replay_case(path, lambda case: Outcome(Verdict.LESS_ACCURATE), {**HERE_29, "device": "cuda:0"})
    assert on_cuda.now == "less_accurate" and on_cuda.expected and on_cuda.as_stated  # never run: in range, a finding is expected


@pytest.mark.parametrize(
    "field, message",
    [
        ("pytorch#1", "must be an object"),
        ({"issue": "pytorch#1", "number": 1}, "keys among"),
        ({"title": "no issue"}, "not of the form"),
        ({"issue": "#183605"}, "not of the form"),
        ({"issue": "pytorch#183605", "url": "javascript:alert(1)"}, "not an https address"),
    ],
)
def test_a_malformed_upstream_field_is_a_case_error(tmp_path, field, message):
    with pytest.raises(CaseError, match=message):
        upstream(load_case(_stated(tmp_path, Verdict.LESS_ACCURATE, {"device": "cpu"}, field)))


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"upstream": {"issue": "183605"}}, "'upstream': issue '183605' is not of the form"),
        ({"upstream": ["pytorch#183605"]}, "'upstream' must be an object"),
        ({"reproduces": {"isa": "AVX512"}}, "'isa' must be a list"),
        ({"reproduces": {"torch": "newest"}}, "'reproduces': Invalid specifier"),
    ],
)
def test_corpus_replay_of_a_malformed_field_gives_one_line_and_exit_2(cli, tmp_path, extra, message):
    path = save_finding(tmp_path, GRAPH, "inductor", Verdict.LESS_ACCURATE, "exp", "fp32", "kernel_accuracy")
    data = json.loads(path.read_text())
    data["extra"].update({"reproduces": {"device": "cpu"}, "upstream": {"issue": "pytorch#1"}, **extra})
    path.write_text(json.dumps(data))
    result = cli("corpus", tmp_path, "--replay")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and path.name in lines[0] and "Traceback" not in result.output
