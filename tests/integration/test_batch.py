"""Several graphs compiled as one program: the same verdicts and findings as one at a time.

Thunder targets do not batch by default (no gain measured); `batch` forces it here, because
the planted executors are Thunder's and their compiles are cheap.
"""

from __future__ import annotations

import pytest
from helpers import PLANTED_BUGS, PLANTED_CRASHES, campaign_seed, plain_config, through

from numfuzz.campaign.loop import CampaignConfig, run_campaign
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunMix

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors

BUGS = ["thunder:bug_expm1", "thunder:bug_cast"]
AROUND_BUGS = GenConfig(max_nodes=4, max_dim=4, ops=("expm1", "cast", "add", "mul"))
SEED = campaign_seed(AROUND_BUGS, 16, lambda graphs: through("expm1", graphs) >= 3 and through("cast", graphs) >= 3)  # both bugs' ops drawn


def _config(corpus, targets, batch, graphs, gen, imports, mix=RunMix()) -> CampaignConfig:
    return plain_config(
        targets=targets, graphs=graphs, seed=SEED, corpus=corpus, samples=8, gen=gen, workers=1, batch=batch,
        first_case_grace=0.0, imports=imports, minimize=False, progress=False, mix=mix,
    )  # fmt: skip


def test_batched_and_unbatched_campaigns_find_the_same_bugs(tmp_path):
    alone = run_campaign(_config(tmp_path / "alone", BUGS, 1, 16, AROUND_BUGS, (str(PLANTED_BUGS),)))
    together = run_campaign(_config(tmp_path / "together", BUGS, 4, 16, AROUND_BUGS, (str(PLANTED_BUGS),)))

    assert together.graphs_done == alone.graphs_done == 16
    assert {t: dict(c) for t, c in together.verdicts.items()} == {t: dict(c) for t, c in alone.verdicts.items()}
    assert sorted(p.name for p in together.findings) == sorted(p.name for p in alone.findings)
    assert {t: c["less_accurate"] for t, c in alone.verdicts.items()} == {t: c["less_accurate"] for t, c in together.verdicts.items()}
    assert sum(c["less_accurate"] for c in alone.verdicts.values()) >= 2  # both planted bugs show up
    assert alone.stats.batched == 0 and together.stats.batched >= 16  # most cases came from a batch


def test_cases_drawn_with_threads_compile_in_batches_and_find_what_they_find_alone(tmp_path):
    """A campaign's block of cases shares its thread count (and options), so a batch compiles them together."""
    threads = RunMix(thread_share=1.0, thread_count=2)
    alone = run_campaign(_config(tmp_path / "alone", BUGS, 1, 16, AROUND_BUGS, (str(PLANTED_BUGS),), threads))
    together = run_campaign(_config(tmp_path / "together", BUGS, 4, 16, AROUND_BUGS, (str(PLANTED_BUGS),), threads))

    assert {t: dict(c) for t, c in together.verdicts.items()} == {t: dict(c) for t, c in alone.verdicts.items()}
    assert sorted(p.name for p in together.findings) == sorted(p.name for p in alone.findings) and together.findings
    assert all('"threads": 2' in p.read_text() for p in together.findings)
    assert alone.stats.batched == 0 and together.stats.batched >= 16


def test_a_batch_that_crashes_runs_each_of_its_cases_alone(tmp_path):
    tanh_only = GenConfig(max_nodes=3, max_dim=4, ops=("tanh",))
    summary = run_campaign(_config(tmp_path, ["thunder:crash_segv"], 3, 3, tanh_only, (PLANTED_CRASHES,)))

    assert summary.graphs_done == 3 and summary.stats.verdicts["thunder:crash_segv"]["segfault"] == 3
    assert summary.stats.restarts["segfault"] == 4  # the batch, then each case alone
    assert len(summary.findings) == 3 and summary.stats.batched == 0
    assert "a batch of 3 cases on thunder:crash_segv ended in segfault" in (summary.directory / "numfuzz.log").read_text()
