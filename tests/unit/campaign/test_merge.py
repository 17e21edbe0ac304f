"""`numfuzz merge` on hand-made corpora: copied once, idempotent, conflicts and corrupt files reported, stats summed."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import plain_config

from numfuzz.campaign.journal import Journal
from numfuzz.campaign.merge import merge_corpora
from numfuzz.corpus.make import make_case
from numfuzz.corpus.size_order import size_key
from numfuzz.corpus.store import save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec

TARGET = "thunder:crash_nan"
TANH = GenConfig(min_nodes=3, max_nodes=3, max_dim=4, ops=("tanh",))
ONE_TANH = GenConfig(max_nodes=1, max_dim=2, ops=("tanh",))
SIGNATURE = {"target": TARGET, "symptom": "nonfinite", "ops": ["tanh"], "dtype": "fp32"}


def finding(seed: int, config: GenConfig = TANH):
    case = make_case(seed, RunSpec(TARGET, samples=2), config)
    case.result = Outcome(Verdict.NONFINITE, "planted").to_json()
    return case


def minimized(original, seed: int):
    small = finding(seed, ONE_TANH)
    small.extra = {"original": {"hash": original.content_hash()}, "signature": SIGNATURE}
    return small


def shard(root: Path, k: int, seeds: list[int], minimize_seed: int | None = None) -> list:
    """A corpus as a campaign shard leaves it: findings, perhaps one minimised, and its journal."""
    cases = [finding(s) for s in seeds]
    for case in cases:
        save_case(case, root / "findings")
    if minimize_seed is not None:
        save_case(minimized(cases[0], minimize_seed), root / "minimized")
    journal = Journal.open(root, plain_config(targets=(TARGET,), graphs=len(seeds), seed=7, shard=(k, 2), samples=2, gen=TANH).identity(), [TARGET])
    for ordinal in range(len(seeds)):
        journal.stats.record(TARGET, Verdict.NONFINITE, ["tanh"], 2)
        journal.mark_done(ordinal, TARGET)
    journal.save()
    journal.close()
    return cases


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def test_merge_copies_each_file_once_sums_stats_and_is_idempotent(tmp_path, cli):
    shard(tmp_path / "a", 0, [1, 2], minimize_seed=10)
    shard(tmp_path / "b", 1, [3, 4, 5], minimize_seed=11)
    out = tmp_path / "out"
    result = cli("merge", tmp_path / "a", tmp_path / "b", "-o", out)
    assert result.exit_code == 0, result.output
    assert len(list((out / "findings").glob("*.json"))) == 5 and len(list((out / "minimized").glob("*.json"))) == 2
    assert len(list((out / "campaign").iterdir())) == 2 and not list(out.glob("campaign/*/lock"))
    summary = json.loads((out / "merge_stats.json").read_text())
    assert summary["graphs_done"] == 5 and summary["stats"]["cases"] == 5 and summary["stats"]["findings"] == 5
    assert summary["stats"]["verdicts"] == {TARGET: {"nonfinite": 5}}
    assert "5 findings, 2 signatures" in result.output  # the minimised ones located, the others not yet

    before = snapshot(out)
    again = cli("merge", tmp_path / "a", tmp_path / "b", "-o", out)
    assert again.exit_code == 0 and "0 files copied" in again.output
    assert snapshot(out) == before  # nothing rewritten, not even touched


def test_two_minimised_versions_of_one_group_list_as_one_group_with_the_smallest(tmp_path):
    a = shard(tmp_path / "a", 0, [1], minimize_seed=10)
    b = shard(tmp_path / "b", 1, [2], minimize_seed=12)
    report = merge_corpora([tmp_path / "a", tmp_path / "b"], tmp_path / "out")
    assert report.clean and len(report.groups) == 1 and not report.unminimized
    (group,) = report.groups
    candidates = [minimized(a[0], 10), minimized(b[0], 12)]
    best = min(candidates, key=size_key)
    assert group.count == 2 and group.smallest.name == best.content_hash()[:16] + ".json"


def test_a_group_without_a_minimised_case_is_named(tmp_path, cli):
    shard(tmp_path / "a", 0, [1, 2])
    result = cli("merge", tmp_path / "a", "-o", tmp_path / "out")
    assert result.exit_code == 0
    assert "(not minimised)" in result.output and "1 signatures have no minimised case" in result.output


def test_conflicts_and_corrupt_files_are_reported_and_never_overwrite(tmp_path, cli):
    ours_case, _ = shard(tmp_path / "a", 0, [1, 2])
    shard(tmp_path / "b", 1, [3])
    ours_case.extra["note"] = "another run"
    clash = save_case(ours_case, tmp_path / "b" / "findings")  # same name, other bytes
    torn = tmp_path / "b" / "findings" / "0123456789abcdef.json"
    good = save_case(finding(4), tmp_path / "b" / "findings")
    torn.write_text(good.read_text()[:100])
    out = tmp_path / "out"
    ours = (tmp_path / "a" / "findings" / clash.name).read_bytes()

    result = cli("merge", tmp_path / "a", tmp_path / "b", "-o", out)
    assert result.exit_code == 1
    assert f"conflict: {out / 'findings' / clash.name}" in result.output and "not valid JSON" in result.output
    assert (out / "findings" / clash.name).read_bytes() == ours  # the first copy stays
    assert not (out / "findings" / torn.name).exists()
    assert (out / "findings" / good.name).exists()  # everything else merged
    assert len(list((out / "campaign").iterdir())) == 2


def test_bad_inputs_fail_in_one_line(tmp_path, cli):
    (tmp_path / "empty").mkdir()
    for source, message in ((tmp_path / "nope", "no such folder"), (tmp_path / "empty", "not a numfuzz corpus")):
        result = cli("merge", source, "-o", tmp_path / "out")
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_corpora_without_findings_merge_cleanly(tmp_path, cli):
    shard(tmp_path / "a", 0, [])
    result = cli("merge", tmp_path / "a", "-o", tmp_path / "out")
    assert result.exit_code == 0 and "0 corrupt" in result.output, result.output


def test_shards_that_reach_the_same_minimised_case_are_no_conflict(tmp_path, cli):
    shard(tmp_path / "a", 0, [1], minimize_seed=10)
    shard(tmp_path / "b", 1, [2], minimize_seed=10)  # another finding, the same smallest case
    result = cli("merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "out")
    assert result.exit_code == 0 and "0 conflicts" in result.output, result.output
    assert "1 minimised cases were reached from findings of more than one shard" in result.output
    assert len(list((tmp_path / "out" / "minimized").glob("*.json"))) == 1 and len(list((tmp_path / "out" / "findings").glob("*.json"))) == 2
