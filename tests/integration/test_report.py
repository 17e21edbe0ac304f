"""`numfuzz report` over a real campaign against the planted bugs: a plot per group, links that resolve,
and sweeps that tell a cancellation (expm1 as exp(x) - 1) from a low-precision accumulator (sum)."""

from __future__ import annotations

import json
import math
import statistics
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import PLANTED_BUGS, campaign_seed, planted_bug_shows

from numfuzz.corpus.grouping import group_corpus
from numfuzz.program.space import GenConfig

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors

ACCURACY = ("less_accurate", "nonfinite")


class Sections(HTMLParser):
    """Finding sections with their plots, notes, links and sweep data; every id and href of the page."""

    def __init__(self, text: str):
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.findings: list[dict] = []
        self._in_finding = 0
        self._depth = 0
        self._script: dict | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "section":
            self._depth += 1
            if "finding" in classes:
                self.findings.append({"signature": a.get("data-signature"), "plots": 0, "notes": [], "sweep": None, "links": []})
                self._in_finding = self._depth
        if not self._in_finding:
            return
        current = self.findings[-1]
        if tag == "img" and "plot" in classes and a.get("src", "").startswith("data:image/svg+xml;base64,"):
            current["plots"] += 1
        if tag == "p" and "plot-note" in classes:
            current["notes"].append("")
        if tag == "a" and a.get("href"):
            current["links"].append(a["href"])
        if tag == "script" and "sweep-data" in classes:
            self._script = current

    def handle_endtag(self, tag):
        if tag == "section":
            if self._depth == self._in_finding:
                self._in_finding = 0
            self._depth -= 1
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script["sweep"] = json.loads(data)


def snapshot(corpus: Path) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(corpus.rglob("*")) if p.is_file() and "report" not in p.relative_to(corpus).parts}


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """A short campaign on two planted executors, then its report; the seconds each took.

    Few ops and small graphs, so that 16 graphs find both bugs and minimise quickly: the seed is the first whose graphs
    hold each bug's op where it can show, twice.
    """
    from numfuzz.cli import main

    corpus = tmp_path_factory.mktemp("campaign") / "corpus"
    runner = CliRunner()
    start = time.perf_counter()
    ops = ("expm1", "sum", "add", "mul", "tanh", "exp")
    gen = GenConfig.default(ops=ops, max_nodes=3, models=0.0)  # what the options below draw
    seed = campaign_seed(gen, 16, lambda graphs: all(sum(planted_bug_shows(bug, g) for g in graphs) >= 2 for bug in ("bug_expm1", "bug_sum")))
    args = ["--target", "thunder:bug_expm1", "--target", "thunder:bug_sum", "--graphs", "16", "--ops", ",".join(ops), "--max-nodes", "3"]
    args += ["--seed", str(seed), "--models-share", "0", "--grad-share", "0"]  # a model's window brings other ops; gradients cost more
    fuzz = runner.invoke(main, ["fuzz", "--import", str(PLANTED_BUGS), *args, "--samples", "16", "--corpus", str(corpus)], catch_exceptions=False)
    assert fuzz.exit_code == 0, fuzz.output
    fuzzed = time.perf_counter()
    before = snapshot(corpus)
    report = runner.invoke(main, ["report", str(corpus), "--import", str(PLANTED_BUGS)], catch_exceptions=False)
    assert report.exit_code == 0, report.output
    seconds = {"fuzz": fuzzed - start, "report": time.perf_counter() - fuzzed}
    return corpus, before, Sections((corpus / "report" / "index.html").read_text()), seconds


def envelope(sweep: dict, low: bool) -> list[float]:
    """The upper edge of the target's errors (ULPs), one value per octave of input magnitude,
    over small magnitudes (<= 2**-6) or large ones (>= 2**-1): what the eye reads off the plot."""
    top: dict[int, float] = {}
    for p in sweep["points"]:
        magnitude, error = p["input_magnitude"], float(p["target_ulp"])
        if magnitude <= 2.0**-6 if low else magnitude >= 0.5:
            octave = math.floor(math.log2(magnitude))
            top[octave] = max(top.get(octave, 0.0), error)
    return list(top.values())


def test_one_section_and_one_plot_per_group(reported):
    corpus, _, page, seconds = reported
    groups, problems = group_corpus(corpus)
    accuracy = [g for g in groups if g.signature.symptom in ACCURACY]
    assert not problems and accuracy
    assert sorted(s["signature"] for s in page.findings) == sorted(g.signature.text() for g in accuracy)
    for section in page.findings:
        assert section["plots"] == 1 and not section["notes"], section
        assert section["sweep"]["points"], section
    print(f"campaign {seconds['fuzz']:.1f} s, report {seconds['report']:.1f} s")


def test_links_resolve_to_files_written_beside_the_page(reported):
    corpus, _, page, _ = reported
    root = corpus / "report"
    local = [h for h in page.hrefs if not h.startswith("#")]
    assert local and all((root / h).is_file() for h in local), [h for h in local if not (root / h).is_file()]
    assert all(h[1:] in page.ids for h in page.hrefs if h.startswith("#"))
    for section in page.findings:
        repro = [h for h in section["links"] if h.startswith("repro/")]
        assert any(h.endswith(".py") for h in repro) and any(h.endswith(".md") for h in repro), section


def test_the_corpus_is_not_written_to(reported):
    corpus, before, _, _ = reported
    assert snapshot(corpus) == before


def test_expm1_error_rises_toward_zero_and_sum_error_does_not(reported):
    _, _, page, _ = reported
    by_op = {}
    for section in page.findings:
        parts = [part.strip() for part in section["signature"].split("|")]
        target, op = parts[0], parts[2]
        by_op.setdefault((target, op), []).append(section["sweep"])
    expm1, sums = by_op.get(("thunder:bug_expm1", "expm1"), []), by_op.get(("thunder:bug_sum", "sum"), [])
    assert expm1 and sums, sorted(by_op)
    for sweep in expm1:  # a cancellation: hundreds of ULPs near zero, about one at |x| ~ 1
        assert statistics.median(envelope(sweep, low=True)) > 8 * statistics.median(envelope(sweep, low=False)), sweep
    for sweep in sums:  # an accumulator: no worse at small magnitudes than at large ones
        assert max(envelope(sweep, low=True)) <= 2 * statistics.median(envelope(sweep, low=False)), sweep
