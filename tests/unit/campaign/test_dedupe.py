"""What a campaign minimises: one finding per root cause, a known issue once, nothing within rounding; each skip noted."""

from __future__ import annotations

import json

import torch

from numfuzz.campaign.dedupe import Dedupe
from numfuzz.corpus.case import Case
from numfuzz.corpus.grouping import NOTES
from numfuzz.corpus.known import load_known
from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.rounding_record import RoundingRecord
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec

GRAPH = Graph((TensorSpec((4,), "fp32"),), (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32"), Node.make("exp", [2])), (3,))


def outcome(target_ulp: float, op: str, cause: str, dtype: str = "fp32", needed_ulp: float | None = None) -> dict:
    errors = OutputErrors(0, dtype, 4, 0.5, 0.3, target_ulp, target_ulp, 0, 0, 0, 0, 4, 0, 0, 0, Verdict.LESS_ACCURATE.value)
    record = None
    if needed_ulp is not None:  # the rounding error measured at the op: the Pareto front of (forward, needed)
        record = {"op": op, "dtype": dtype, "device": "cpu", "n": 1, "target": {"front": [[target_ulp, needed_ulp]]}}
    analysis = Analysis(0, cause, ["..."], op, dtype, rounding_error=RoundingRecord.from_json(record) if record is not None else None)
    return Outcome(Verdict.LESS_ACCURATE, outputs=[errors], analysis=analysis).to_json()


def case(target: str, torch_version: str = "2.9.1") -> Case:
    return Case.from_tensors(GRAPH, [[torch.ones(4)]], target, provenance={"torch": torch_version, "device": "cpu"})


def test_one_minimisation_per_root_cause_known_issue_and_none_within_rounding(tmp_path):
    dedupe = Dedupe(set(), load_known(), tmp_path, load_bounds([]))
    assert dedupe.decide(case("inductor"), outcome(3e4, "cast", "cast_dropped", "bf16"), "a") is not None
    # the same dropped cast under another consumer, and an fp16 one: the same root cause
    assert dedupe.decide(case("inductor"), outcome(1e3, "cast", "cast_dropped", "fp16"), "b") is None
    assert dedupe.decide(case("thunder:bug_expm1"), outcome(1e6, "expm1", "cancellation"), "c") is not None
    # 5 ULP at cos, yet the exact cos of inputs 0.2 ULP away: within Sleef's documented 3.5 ULP
    assert dedupe.decide(case("thunder:bug_expm1"), outcome(5.0, "cos", "kernel_accuracy", needed_ulp=0.2), "d") is None
    assert dedupe.decide(case("thunder:bug_expm1"), outcome(5.0, "sin", "kernel_accuracy", needed_ulp=40.0), "f") is not None  # beyond it
    assert dedupe.decide(case("thunder:bug_expm1"), outcome(1e3, "expm1", "cancellation", "bf16"), "g") is None  # the same formula in bf16
    notes = json.loads((tmp_path / NOTES).read_text())
    assert set(notes) == {"b", "d", "g"}
    assert "minimised from another finding" in notes["b"] and notes["d"].startswith("within_rounding")
    again = Dedupe(dedupe.keys, load_known(), tmp_path, load_bounds([]))  # resumed: the journal's keys and the notes persist
    assert again.decide(case("inductor"), outcome(3e4, "cast", "cast_dropped", "bf16"), "e") is None
    assert set(json.loads((tmp_path / NOTES).read_text())) == {"b", "d", "e", "g"}
