"""The page from plain data: one section and one figure per group, links that resolve, no torch needed."""

from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
from html.parser import HTMLParser

from numfuzz.report import plots
from numfuzz.report.data import CampaignView, ErrorRow, GroupView, Known, Link, ReportData, RunRate, Sweep, SweepPoint
from numfuzz.report.render import render


class Page(HTMLParser):
    """The parts of a report page the tests look at: sections, figures, links, ids, sweep data."""

    def __init__(self, text: str):
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.sections: list[dict] = []  # finding and crash sections, in page order
        self._open: list[tuple[str, dict | None]] = []
        self._json: dict | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if a.get("src"):
            self.srcs.append(a["src"])
        section = None
        if tag == "section" and ({"finding", "crash"} & set(classes)):
            section = {"id": a.get("id"), "kind": "finding" if "finding" in classes else "crash", "classes": classes, "figures": 0,
                       "plots": [], "notes": 0, "sweep": None, "links": [], "text": []}  # fmt: skip
            self.sections.append(section)
        self._open.append((tag, section))
        current = self.current
        if current is None:
            return
        if tag == "figure" and "sweep" in classes:
            current["figures"] += 1
        if tag == "img" and "plot" in classes:
            current["plots"].append(a["src"])
        if tag == "p" and "plot-note" in classes:
            current["notes"] += 1
        if tag == "a" and a.get("href"):
            current["links"].append(a["href"])
        if tag == "script" and "sweep-data" in classes:
            self._json = current

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self._open.pop()

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break
        if tag == "script":
            self._json = None

    def handle_data(self, data):
        if self._json is not None:
            self._json["sweep"] = json.loads(data)
        elif self.current is not None:
            self.current["text"].append(data)

    @property
    def current(self) -> dict | None:
        return next((s for _, s in reversed(self._open) if s is not None), None)


def cancelling_sweep() -> Sweep:
    """expm1 as exp(x) - 1 in fp16: the error grows as x shrinks; eager stays under half an ULP."""
    points = []
    for k in range(-12, 5):
        x = 2.0**k
        points.append(SweepPoint(k, x, math.expm1(x), 0.25, max(0.5, 2.0 ** (-k - 2))))
    points.append(SweepPoint(5, 32.0, 7.9e13, 0.0, math.inf))  # a non-finite target is drawn, not dropped
    return Sweep(0, "fp16", 0, 0, points, skipped=3)


def group(name: str, symptom: str = "less_accurate", **kwargs) -> GroupView:
    rows = [ErrorRow(0, "fp16", "eager", 0.17, 0.17, 5e-6, 1.6e-4), ErrorRow(0, "fp16", "target", 15.8, 15.8, 4.8e-4, 0.015, "1/0", "less_accurate")]
    defaults = dict(count=1, severity=5.0, case=Link("../minimized/abc.json", "abc.json"), program="def fn(x0):\n    return (x0 < 1,)\n",
                    inputs=["x0: fp16[], 1 sample"], errors=rows)  # fmt: skip
    defaults.update(kwargs)
    return GroupView(f"g-{name}", f"thunder:{name} | {symptom} | op | fp16", f"thunder:{name}", symptom, **defaults)


def sample_report() -> ReportData:
    swept = cancelling_sweep()
    new = group("new_one", sweep=swept, plot_svg=plots.sweep_svg(swept, "thunder:new_one"), repro=[Link("repro/repro_abc.py", "repro script")])
    unswept = group("unswept", plot_note="not swept: target thunder:unswept is unavailable", cause="cancellation", evidence=["error grows as |x| -> 0"])
    known = group("old_one", known=Known("NF-1", "expm1 cancels", "https://example.org/issues/1", "open"), plot_note="made with --no-sweep")
    crash = group("crashy", "segfault", severity=None, errors=[], detail="worker killed by SIGSEGV", traceback="Fatal Python error: Segmentation fault")
    campaign = CampaignView("seed0-shard0of2-abc", "0", "0/2", ["thunder:new_one"], "cpu", "64", runs=2, graphs_done=40, cases=80, findings=3,
                            verdicts={"thunder:new_one": {"equal": 37, "less_accurate": 3}}, coverage={"thunder:new_one": {"expm1": 5, "sum": 2}},
                            rates=[RunRate("seed0-shard0of2-abc run 1", [0.1, 0.2], [100.0, 120.0])])  # fmt: skip
    data = ReportData("runs/demo", "2026-01-01 00:00 UTC", "0.1.0", "cpu", [campaign], [new, unswept, known, crash])
    data.coverage_svg = plots.coverage_svg(campaign.coverage, ["expm1", "sum", "tanh"])
    data.rate_svg = plots.rate_svg(campaign.rates)
    data.skipped = ["findings/bad.json: not valid JSON"]
    return data


def test_one_section_and_one_figure_per_group_and_plots_are_svg():
    data = sample_report()
    page = Page(render(data))
    findings = [s for s in page.sections if s["kind"] == "finding"]
    crashes = [s for s in page.sections if s["kind"] == "crash"]
    assert [s["id"] for s in findings] == ["g-new_one", "g-unswept", "g-old_one"]
    assert [s["id"] for s in crashes] == ["g-crashy"]
    for section in findings:
        assert section["figures"] == 1 and len(section["plots"]) + section["notes"] == 1
    assert not crashes[0]["figures"] and not crashes[0]["plots"]
    svg = base64.b64decode(findings[0]["plots"][0].removeprefix("data:image/svg+xml;base64,")).decode()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert findings[0]["sweep"]["points"][-1]["target_ulp"] == "Infinity"  # valid JSON, no bare inf
    assert findings[0]["sweep"]["points"][0]["exponent"] == -12


def test_contents_links_resolve_to_sections_and_classes_say_new_or_known():
    page = Page(render(sample_report()))
    anchors = [h[1:] for h in page.hrefs if h.startswith("#")]
    assert anchors and all(a in page.ids for a in anchors)
    classes = {s["id"]: s["classes"] for s in page.sections}
    assert "new" in classes["g-new_one"] and "known" in classes["g-old_one"]
    assert "https://example.org/issues/1" in next(s for s in page.sections if s["id"] == "g-old_one")["links"]


def test_cause_is_shown_or_said_to_be_missing_and_text_is_escaped():
    text = render(sample_report())
    page = Page(text)
    by_id = {s["id"]: " ".join(s["text"]) for s in page.sections}
    assert "cause: not analysed" in by_id["g-new_one"]
    assert "cancellation" in by_id["g-unswept"] and "error grows as |x| -> 0" in by_id["g-unswept"]
    assert "return (x0 &lt; 1,)" in text  # program text is escaped, never markup
    assert "not swept: target thunder:unswept is unavailable" in by_id["g-unswept"]


def test_empty_report_says_so():
    data = ReportData("runs/empty", "2026-01-01 00:00 UTC", "0.1.0")
    page = Page(render(data))
    text = render(data)
    assert page.sections == []
    assert "No accuracy findings" in text and "No crashes, hangs or other failures" in text
    assert "No campaign records" in text


def test_the_page_is_self_contained():
    page = Page(render(sample_report()))
    assert page.srcs and all(src.startswith("data:image/svg+xml;base64,") for src in page.srcs)
    outside = [h for h in page.hrefs if "//" in h or h.startswith("/")]
    assert outside == ["https://example.org/issues/1"]  # only the known issue's own link leaves the page
    assert "<link" not in render(sample_report())


def test_plain_data_rendering_imports_no_torch():
    code = (
        "import sys, numfuzz.report.data, numfuzz.report.render, numfuzz.report.plots, numfuzz.report.campaigns; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
