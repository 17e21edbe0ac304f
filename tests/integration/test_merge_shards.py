"""`numfuzz merge` on real campaigns: two shards merged equal the unsharded campaign."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import PLANTED_CRASHES, plain_config

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.grouping import group_corpus
from numfuzz.corpus.store import iter_cases
from numfuzz.program.generator import GenConfig

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors

TANH_ONLY = GenConfig(max_nodes=3, max_dim=4, ops=("tanh",))
TARGETS = ["thunder:crash_nan", "thunder:torch"]  # every case a finding on one, none on the other


def _campaign(corpus: Path, shard: tuple[int, int], graphs: int) -> None:
    config = plain_config(
        targets=list(TARGETS), graphs=graphs, seed=11, corpus=corpus, samples=2, gen=TANH_ONLY, workers=1, shard=shard,
        first_case_grace=0.0, imports=(PLANTED_CRASHES,), minimize=False, progress=False,
    )  # fmt: skip
    run_campaign(config)


def test_two_shards_merged_equal_the_unsharded_campaign(tmp_path, cli):
    _campaign(tmp_path / "whole", (0, 1), 6)
    _campaign(tmp_path / "s0", (0, 2), 3)
    _campaign(tmp_path / "s1", (1, 2), 3)
    out = tmp_path / "merged"
    result = cli("merge", tmp_path / "s0", tmp_path / "s1", "-o", out)
    assert result.exit_code == 0, result.output

    names = lambda corpus: {p.name for p in iter_cases(corpus / "findings")}
    assert names(out) == names(tmp_path / "whole") and len(names(out)) == 6
    (whole_state,) = (tmp_path / "whole").glob("campaign/*/state.json")
    whole = json.loads(whole_state.read_text())
    merged = json.loads((out / "merge_stats.json").read_text())
    assert merged["graphs_done"] == whole["graphs_done"] == 6
    for key in ("verdicts", "coverage", "cases", "samples", "findings", "errors"):
        assert merged["stats"][key] == whole["stats"][key], key
    listing = lambda corpus: sorted((g.signature.text(), g.count) for g in group_corpus(corpus)[0])
    assert listing(out) == listing(tmp_path / "whole")
