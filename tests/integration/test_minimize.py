"""Quality: each planted bug, found by the fuzzer, is minimised to the op it breaks."""

from __future__ import annotations

import json

import pytest
from helpers import read_json
from planted_findings import PLANTED, found, minimized, planted_target

from numfuzz.corpus.case import stored_signature
from numfuzz.corpus.size_order import size_key
from numfuzz.corpus.store import load_case
from numfuzz.reduce.minimize import minimize_case

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors


@pytest.mark.parametrize("executor", sorted(PLANTED))
def test_planted_bug_is_minimised_to_the_op_it_breaks(executor):
    op, symptom = PLANTED[executor]
    original, result = found(executor), minimized(executor)
    assert result.reproduced and result.outcome.verdict.value == symptom
    ops = [n.op for n in result.case.graph.nodes]
    assert op in ops and len(ops) <= 2, ops
    if op != "cast":  # an elided round trip needs both of its casts
        assert ops == [op]
    assert len(result.case.graph.outputs) == 1 and size_key(result.case) < size_key(original)
    # The same signature all the way: target, symptom, culprit op.
    signature = stored_signature(result.case)
    assert signature == result.signature
    assert (signature.target, signature.symptom, signature.ops) == (f"thunder:{executor}", symptom, (op,))
    # Bookkeeping: the compiles it cost, and the original kept beside it.
    notes = result.case.extra["minimize"]
    assert notes["compiles"] == result.compiles <= notes["max_compiles"] and not result.exhausted
    assert result.case.extra["original"]["hash"] == original.content_hash()
    assert result.case.extra["original"]["case"]["graph"] == original.graph.to_json()
    assert result.case.run == original.run


def test_minimised_case_still_reproduces_and_is_a_fixpoint():
    result = minimized("bug_expm1")
    again = minimize_case(result.case, planted_target("bug_expm1"), "cpu")
    assert again.reproduced and again.steps == []
    assert again.case.graph == result.case.graph and again.case.samples == result.case.samples
    assert again.case.extra["original"]["hash"] == result.case.extra["original"]["hash"]  # the first original stays


def test_a_correct_executor_has_nothing_to_minimise():
    from numfuzz.targets import resolve

    result = minimize_case(found("bug_expm1"), resolve("thunder:torch"), "cpu")
    assert not result.reproduced and result.compiles == 1
    assert "equal" in result.summary() or "more_accurate" in result.summary()


def test_the_compile_budget_is_kept():
    result = minimize_case(found("bug_silu"), planted_target("bug_silu"), "cpu", max_compiles=5)
    assert result.reproduced and result.exhausted and result.compiles <= 5
    assert size_key(result.case) <= size_key(found("bug_silu"))


def test_cli_minimize_writes_the_case_and_keeps_the_original(cli, planted_bugs, tmp_path):
    case = found("bug_softplus")
    from numfuzz.corpus.store import save_case

    path = save_case(case, tmp_path / "findings")
    before = path.read_text()
    out = tmp_path / "small.json"
    result = cli("minimize", path, "-o", out, "--import", planted_bugs)
    assert result.exit_code == 0, result.output
    assert "softplus" in result.output and "compiles" in result.output
    small = load_case(out)
    assert [n.op for n in small.graph.nodes] == ["softplus"]
    assert path.read_text() == before  # the original is untouched
    assert read_json(out)["extra"]["original"]["hash"] == case.content_hash()
    # Without -o the minimised case goes beside the original.
    result = cli("minimize", path, "--import", planted_bugs)
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "findings").glob("*.json"))) == 2


def test_cli_minimize_bad_input_is_one_line(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 1, "graph": ')
    result = cli("minimize", bad)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "not valid JSON" in result.output
    from numfuzz.corpus.store import save_case

    path = save_case(found("bug_expm1"), tmp_path)
    result = cli("minimize", path, "--target", "nosuch:thing")
    assert result.exit_code == 2 and "unknown target" in result.output
    result = cli("minimize", path, "--target", "thunder:no_such_executor")
    assert result.exit_code == 2 and "unavailable" in result.output and "--import" in result.output


def test_cli_minimize_exit_1_when_not_reproduced(cli, planted_bugs, tmp_path):
    from numfuzz.corpus.store import save_case

    path = save_case(found("bug_expm1"), tmp_path)
    result = cli("minimize", path, "--target", "thunder:torch")
    assert result.exit_code == 1 and "not reproduced" in result.output
    assert json.loads(path.read_text())["run"]["target"] == "thunder:bug_expm1"


def test_the_time_budget_hands_back_the_case_so_far():
    result = minimize_case(found("bug_silu"), planted_target("bug_silu"), "cpu", max_seconds=0.0)
    assert result.reproduced and result.exhausted and result.steps == []
    assert result.compiles <= 3  # confirming and analysing the finding (a probe, a sweep) are not cut short
