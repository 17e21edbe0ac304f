"""A campaign with every case traced: fuzzer_stats, the progress line's record and the report show the compiler lines reached; guided campaigns."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers import plain_config

from numfuzz.address import CaseAddress
from numfuzz.campaign.loop import Campaign, run_campaign
from numfuzz.workers.pool import Task


def test_a_traced_campaign_records_compiler_lines_and_the_report_plots_them(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))  # a cache hit skips most of the compiler
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--target", "inductor", "--graphs", "4", "--seed", "2", "--workers", "1", "--no-minimize", "--trace-share", "1", "--corpus", corpus)
    assert result.exit_code == 0, result.output
    (folder,) = (corpus / "campaign").iterdir()
    rows = {k.strip(): v.strip() for k, v in (line.split(" : ", 1) for line in (folder / "fuzzer_stats").read_text().splitlines())}
    assert int(rows["compiler_lines"]) > 5000 and int(rows["kernel_shapes"]) >= 1 and int(rows["traced_cases"]) >= 1
    reach = json.loads((folder / "state.json").read_text())["stats"]["reach"]
    lines = json.loads((folder / "compiler_lines.json").read_text())  # a file of its own, written when lines are new
    assert "lines" not in reach and reach["trend"] and any(name.startswith("torch/_inductor/") for name in lines)
    assert sum(map(len, lines.values())) == int(rows["compiler_lines"])
    result = cli("report", corpus, "--no-sweep")
    assert result.exit_code == 0, result.output
    assert "Compiler lines reached" in (corpus / "report" / "index.html").read_text()


def test_untraced_campaigns_record_none(cli, tmp_path):
    corpus = tmp_path / "corpus"
    assert cli("fuzz", "--target", "eager", "--graphs", "2", "--workers", "1", "--no-minimize", "--trace-share", "0", "--corpus", corpus).exit_code == 0
    (folder,) = (corpus / "campaign").iterdir()
    assert "compiler_lines" not in (folder / "fuzzer_stats").read_text()


def test_a_guided_campaign_draws_children_and_resumes_with_its_pool(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    corpus = tmp_path / "corpus"
    args = ("fuzz", "--target", "inductor", "--seed", "6", "--workers", "1", "--no-minimize", "--guided-share", "0.5", "--trace-share", "1", "--corpus", corpus)
    assert cli(*args, "--graphs", "6").exit_code == 0
    (folder,) = (corpus / "campaign").iterdir()
    first = json.loads((folder / "state.json").read_text())["guide"]
    assert first and all("lineage" in p for p in first)
    result = cli(*args, "--graphs", "12")
    assert result.exit_code == 0, result.output
    rows = {k.strip(): v.strip() for k, v in (line.split(" : ", 1) for line in (folder / "fuzzer_stats").read_text().splitlines())}
    assert int(rows["children_this_run"]) >= 1 and int(rows["parents"]) >= len(first) - 1


@pytest.mark.timeout(180)
def test_cases_waiting_to_run_alone_when_time_is_up_wait_for_the_next_run(tmp_path):
    """A lost batch's cases and guided children queue to run alone; at the deadline the campaign ends, and they run on resume."""
    config = plain_config(targets=["eager"], seconds=0.0, graphs=3, seed=1, corpus=tmp_path, workers=1, minimize=False, progress=False)
    campaign = Campaign(config)
    campaign.feed.alone.append(Task("case", 0, "eager", 30.0, address=CaseAddress.fresh(1, 0)))
    assert campaign.run().graphs_done == 0  # before the fix this waited for the queued case for ever
    assert run_campaign(dataclasses.replace(config, seconds=None)).graphs_done == 3
