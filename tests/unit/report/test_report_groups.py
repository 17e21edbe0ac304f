"""The report lists exactly the groups `numfuzz corpus` lists, by one rule, with their analysis and backward error."""

from __future__ import annotations

import json

from helpers import save_finding

from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.report.collect import collect_groups


def test_the_report_lists_the_corpus_groups_and_shows_their_cause_and_rounding_error(cli, tmp_path):
    corpus = tmp_path / "corpus"
    graph = lambda op: Graph((TensorSpec((4, 4), "fp32"),), (Node.make(op, [0]),), (1,))  # noqa: E731
    within = {"op": "cos", "dtype": "fp32", "device": "cpu", "n": 1, "bound": {}, "target": {"front": [[1.02, 4.0]]}, "eager": {}}
    save_finding(corpus, graph("cos"), "inductor", Verdict.WITHIN_ROUNDING, "cos", "fp32", "kernel_accuracy", backward_error=within)
    beyond = {
        "op": "expm1",
        "dtype": "fp32",
        "device": "cpu",
        "n": 1,
        "bound": {"output_ulp": 1.0, "input_ulp": 1.0, "documented_ulp": 1.0, "source": "Sleef"},
        "target": {"front": [[1e6, 4e5]], "max_condition": 1.0, "max_needed_ulp": 4e5, "max_forward_ulp": 1e6},
        "eager": {"max_needed_ulp": 0.0},
    }
    save_finding(corpus, graph("expm1"), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", "fp32", "cancellation", backward_error=beyond)
    save_finding(corpus, graph("sin"), "thunder:bug_sin", Verdict.LESS_ACCURATE, "sin", "fp32", "unexplained", value=2.0)
    collected, problems = collect_groups(corpus, tmp_path / "page")
    assert not problems
    listing = cli("corpus", corpus)
    assert listing.exit_code == 0 and "1 benign group hidden" in listing.output
    as_json = cli("corpus", corpus, "--json")
    rows = json.loads(as_json.output[as_json.output.index("[") :])
    assert sorted(c.view.title for c in collected) == sorted(r["group"] for r in rows)
    views = {c.view.target: c.view for c in collected}
    assert set(views) == {"thunder:bug_expm1", "thunder:bug_sin"}
    assert views["thunder:bug_expm1"].cause == "cancellation"  # read from the recorded result, not "not analysed"
    assert "not the exact result of any input within 4e+05 ULP" in views["thunder:bug_expm1"].rounding_error
    assert views["thunder:bug_sin"].cause == "unexplained" and not views["thunder:bug_sin"].rounding_error
