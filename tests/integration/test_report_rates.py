"""The report's graphs/min plot read from the log a real campaign writes, not from a hand-written one.

Eager and the `rounded` target (eager with every op rounded once): two cheap targets that compile
nothing and need no Thunder, so that a graph is two cases in the log.
"""

from __future__ import annotations

import math

from helpers import ROOT

from numfuzz.report.campaigns import read_campaigns

ROUNDING = str(ROOT / "tests" / "rounding_target.py")


def _fuzz(cli, corpus, graphs: int) -> None:
    result = cli(
        "fuzz", "--import", ROUNDING, "--target", "eager", "--target", "rounded", "--graphs", graphs, "--seed", 2, "--workers", 1,
        "--samples", 2, "--max-nodes", 3, "--seams", 0, "--search", 0, "--no-minimize", "--corpus", corpus,
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_each_run_of_a_real_campaign_has_a_rate_that_adds_up_to_its_graphs(cli, tmp_path):
    corpus = tmp_path / "corpus"
    _fuzz(cli, corpus, 3)
    _fuzz(cli, corpus, 7)  # the same campaign resumed: a second run, of 4 graphs
    (view,) = read_campaigns(corpus)
    assert (view.graphs_done, view.cases, view.targets, view.problems) == (7, 14, ["eager", "rounded"], [])
    assert [rate.label for rate in view.rates] == [f"{view.name} run 1", f"{view.name} run 2"]
    for rate, graphs in zip(view.rates, (3, 4)):
        bin_min = 2 * rate.minutes[0]  # the bins are equally wide, and each point is at its bin's centre
        assert len(rate.minutes) == len(rate.graphs_per_min) >= 1 and all(n >= 0 for n in rate.graphs_per_min)
        assert math.isclose(sum(rate.graphs_per_min) * bin_min, graphs), rate
    report = cli("report", corpus, "--import", ROUNDING)
    assert report.exit_code == 0, report.output
    page = (corpus / "report" / "index.html").read_text()
    assert 'alt="graphs per minute over each run"' in page
