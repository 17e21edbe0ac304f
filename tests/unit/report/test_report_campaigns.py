"""Campaign folders: counters, shards and runs read without writing; unreadable files become notes.

LOG is written by hand; integration/test_report_rates.py reads the log of a real campaign.
"""

from __future__ import annotations

import json

from numfuzz.report.campaigns import rates_from_log, read_campaigns

LOG = """\
2026-01-01 10:00:00.000 | INFO     | numfuzz.campaign.loop:run:291 - campaign c run 1: 0 graphs done; targets ['a', 'b']; 1 workers
2026-01-01 10:00:10.000 | DEBUG    | numfuzz.campaign.loop:on_reply:210 - case 0 on a: equal
2026-01-01 10:00:11.000 | DEBUG    | numfuzz.campaign.loop:on_reply:210 - case 0 on b: equal
2026-01-01 10:00:20.000 | INFO     | numfuzz.campaign.loop:on_reply:208 - finding: less_accurate on a (case 1):  -> f.json
2026-01-01 10:00:21.000 | ERROR    | numfuzz.campaign.loop:on_reply:197 - numfuzz failed on case 1 (b): boom; saved as e.json
2026-01-01 10:00:22.000 | INFO     | numfuzz.campaign.loop:_on_minimized:251 - minimised 1234: a | less_accurate | x -> m.json
2026-01-01 11:00:00.000 | INFO     | numfuzz.campaign.loop:run:291 - campaign c run 2: 2 graphs done; targets ['a', 'b']; 1 workers
2026-01-01 11:00:06.000 | DEBUG    | numfuzz.campaign.loop:on_reply:210 - case 2 on a: equal
2026-01-01 11:00:07.000 | DEBUG    | numfuzz.campaign.loop:on_reply:210 - case 2 on b: equal
"""


def test_each_run_has_its_rate_and_a_graph_is_one_case_per_target():
    rates = rates_from_log(LOG.splitlines(), 2, "c")
    assert [r.label for r in rates] == ["c run 1", "c run 2"]
    first = rates[0]
    # 4 cases on 2 targets = 2 graphs in 22 s, in bins of 5 s
    assert abs(sum(first.graphs_per_min) * 5 / 60 - 2.0) < 1e-9


def test_campaign_folders_are_read_and_bad_files_are_noted(tmp_path):
    good = tmp_path / "campaign" / "seed0-shard0of2-aaa"
    bad = tmp_path / "campaign" / "seed0-shard1of2-bbb"
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    state = {
        "campaign": {"seed": 0, "shard": "0/2", "targets": ["a", "b"], "samples": 64, "device": "cpu"},
        "runs": 2,
        "graphs_done": 2,
        "stats": {"verdicts": {"a": {"equal": 1, "less_accurate": 1}}, "coverage": {"a": {"tanh": 2}}, "cases": 4, "restarts": {"segfault": 1}},
    }
    (good / "state.json").write_text(json.dumps(state))
    (good / "fuzzer_stats").write_text("graphs_per_min : 12.5\ntotal_time : 30\n")
    (good / "numfuzz.log").write_text(LOG)
    (bad / "state.json").write_text("{ truncated")
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    views = read_campaigns(tmp_path)
    assert [v.name for v in views] == ["seed0-shard0of2-aaa", "seed0-shard1of2-bbb"]
    first, second = views
    assert (first.shard, first.runs, first.cases, first.restarts, first.graphs_per_min) == ("0/2", 2, 4, 1, "12.5")
    assert first.verdicts == {"a": {"equal": 1, "less_accurate": 1}} and first.coverage == {"a": {"tanh": 2}}
    assert len(first.rates) == 2
    assert len(second.problems) == 1 and "unreadable" in second.problems[0]
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def test_no_campaign_folder_is_no_campaign(tmp_path):
    assert read_campaigns(tmp_path) == []


def test_the_rate_reads_what_the_named_format_writes_whatever_loguru_defaults_to(tmp_path):
    """loguru 0.8's default time carries a UTC offset that 0.7's lacked; numfuzz names its format, and still reads 0.8's."""
    from loguru import logger

    from numfuzz.campaign.log_format import LOG_FORMAT

    path = tmp_path / "numfuzz.log"
    sink = logger.add(path, format=LOG_FORMAT, level="DEBUG")
    try:
        logger.info("campaign c run 1: 0 graphs done; targets ['a']; 1 workers")
        for index in range(3):
            logger.debug("case {} on a: equal", index)
    finally:
        logger.remove(sink)
    (written,) = rates_from_log(path.read_text().splitlines(), 1, "c")
    assert written.label == "c run 1"
    with_offset = [line.replace(".000 |", ".000 +00:00 |", 1) for line in LOG.splitlines()]
    assert [r.label for r in rates_from_log(with_offset, 2, "c")] == ["c run 1", "c run 2"]
