"""The typed analysis: old case files load into it, and their stored verdict is what they recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.cause import ILL_CONDITIONED, cause_named, current_name
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import VERSION, Analysis, Culprit, Parting
from numfuzz.judge.rules import verdict_of
from numfuzz.judge.verdicts import Verdict

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
COMMITTED = sorted(p for p in CORPUS.rglob("*.json") if isinstance(json.loads(p.read_text()).get("result"), dict))
RECORD = {"op": "cos", "dtype": "fp32", "device": "cpu", "n": 1, "target": {"front": [[1.02, 0.0]]}, "eager": {"max_needed_ulp": 0.0}}


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.stem)
def test_every_committed_case_loads_and_its_verdict_under_the_shipped_bounds_is_the_recorded_one(path):
    result = json.loads(path.read_text())["result"]
    outcome = Outcome.from_json(result)
    assert verdict_of(outcome, load_bounds([])) is Verdict(result["verdict"])
    if "analysis" in result:
        assert isinstance(outcome.analysis, Analysis) and outcome.analysis.cause == current_name(result["analysis"]["cause"])


def test_a_case_stored_under_a_former_cause_name_reads_as_the_cause_it_names_now():
    stored = {
        "verdict": "amplified",
        "oracle_verdict": "nonfinite",
        "rule": "amplified",
        "outputs": [],
        "analysis": {"version": 2, "output": 0, "cause": "amplified"},
    }
    outcome = Outcome.from_json(stored)
    assert outcome.analysis.cause == ILL_CONDITIONED.name and outcome.analysis.ill_conditioned
    assert cause_named("amplified") is ILL_CONDITIONED
    assert verdict_of(outcome, load_bounds([])) is Verdict.AMPLIFIED
    old = [p for p in COMMITTED if json.loads(p.read_text())["result"].get("analysis", {}).get("cause") == "amplified"]
    assert old and all(Outcome.from_json(json.loads(p.read_text())["result"]).analysis.ill_conditioned for p in old)


def test_a_version_one_analysis_reads_as_facts():
    old = {
        "output": 0,
        "culprit": {"node": 0, "op": "cos", "dtype": "fp32", "verdict": "less_accurate", "located": "single op"},
        "cause": "kernel_accuracy",
        "evidence": ["`cos` in fp32 is 1.02 ULP off", "at `cos` (fp32, ...): the compiled result is within 1.02 ULP of float64 at the op"],
        "op": "cos",
        "dtype": "fp32",
        "backward_error": RECORD,
        "nonfinite_rest": "the program after `cos` ... is non-finite",
    }
    facts = Analysis.from_json(old)
    assert facts.rounding_error.to_json() == RECORD and facts.culprit == Culprit(0, "cos", "fp32", "less_accurate", "single op")
    assert facts.nonfinite_rest.startswith("the program after") and facts.evidence == ["`cos` in fp32 is 1.02 ULP off"]  # the record's words are said anew
    assert Analysis.from_json(facts.to_json()) == facts and facts.to_json()["version"] == VERSION


def test_a_version_one_position_case_gets_its_partings_from_its_words():
    old = {
        "output": 0,
        "cause": "position_rounding",
        "op": "cos",
        "dtype": "fp32",
        "evidence": [
            "the two positions first part at `cos` (fp32), whose compiled values are within 0.4 ULP of the op applied exactly to their own inputs (its bound: 3.5)"
        ],
    }
    stored = Outcome.from_json({"verdict": "within_rounding", "outputs": [], "analysis": old})
    assert stored.analysis.partings == [Parting("cos", "fp32", "cpu", 0.4)]
    assert stored.oracle is Verdict.POSITION_DEPENDENT and verdict_of(stored, load_bounds([])) is Verdict.WITHIN_ROUNDING


def test_an_unreadable_analysis_is_an_error_not_a_guess():
    with pytest.raises(ValueError, match="unreadable analysis"):
        Analysis.from_json({"output": "first", "cause": "x"})
