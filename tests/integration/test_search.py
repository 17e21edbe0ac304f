"""The search toward the worst error, in a campaign: it finds a needle random inputs miss, and raises no false alarm."""

from __future__ import annotations

import pytest
from helpers import PLANTED_BUGS, SEEDS, campaign_seed, plain_config, read_json
from planted_findings import planted_target

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.store import load_case
from numfuzz.program.generator import GenConfig
from numfuzz.runner.case_runner import run_case, search_case
from numfuzz.targets import resolve

AROUND_SIN = GenConfig(max_nodes=3, max_dim=4, ops=("sin", "add", "mul", "neg"))


def _needles(graphs) -> int:
    """Graphs whose sin takes an input the search can move within 2**-30 of zero (fp16 rounds such a value to 0)."""
    return sum(any(n.op == "sin" and n.args[0] < len(g.inputs) and g.inputs[n.args[0]].dtype in ("fp32", "bf16") for n in g.nodes) for g in graphs)


SEED = campaign_seed(AROUND_SIN, 12, lambda graphs: _needles(graphs) >= 2)


def _campaign(tmp_path, search: float, minimize: bool, batch: int = 1):
    config = plain_config(
        targets=["thunder:bug_sin_tiny"], graphs=12, seed=SEED, corpus=tmp_path, samples=16, workers=1, batch=batch,
        gen=AROUND_SIN, search=search, imports=(str(PLANTED_BUGS),), minimize=minimize, progress=False,
    )  # fmt: skip
    return run_campaign(config)


@pytest.mark.thunder
def test_the_search_finds_and_minimises_a_needle_the_random_samples_miss(tmp_path):
    without = _campaign(tmp_path / "random", 0.0, minimize=False)
    assert not without.findings, "random samples should not come within 2**-30 of zero"
    found = _campaign(tmp_path / "search", 0.5, minimize=True)
    assert found.findings and found.minimized
    case = read_json(found.findings[0])
    assert case["result"]["verdict"] == "less_accurate" and case["provenance"]["searched_samples"] >= 1
    assert len(case["samples"]) == 16 + case["provenance"]["searched_samples"]
    minimized = load_case(found.minimized[0])
    assert [n.op for n in minimized.graph.nodes] == ["sin"]
    # the stored samples reproduce it bit for bit, without a search
    assert run_case(load_case(found.findings[0]), planted_target("bug_sin_tiny"), "cpu").verdict.value == "less_accurate"


@pytest.mark.thunder
def test_batched_graphs_search_on_the_batch_compile_and_the_finding_is_judged_alone(tmp_path):
    alone = _campaign(tmp_path / "alone", 0.5, minimize=False)
    batched = _campaign(tmp_path / "batched", 0.5, minimize=False, batch=4)
    assert batched.stats.batched > 0 and batched.findings
    for path in batched.findings:  # each was judged alone, with the samples the batch's search found
        case = read_json(path)
        assert case["result"]["verdict"] == "less_accurate" and case["provenance"]["searched_samples"] >= 1
    assert len(batched.findings) >= len(alone.findings) // 2


@pytest.mark.parametrize("path", sorted(SEEDS.glob("*.json")), ids=lambda p: p.stem)
def test_the_search_raises_no_false_alarm_on_the_seed_cases(path):
    """The seed report's 'more accurate than eager' must stay clean however hard the search looks."""
    case = load_case(path)
    target = resolve(case.target)
    ok, why = target.available()
    if not ok:
        pytest.skip(f"{case.target} is unavailable here: {why}")
    _, outcome = search_case(case.with_run(case.run.with_changes(search=2.0)), target, "cpu")
    assert not outcome.verdict.is_finding, (outcome.verdict, outcome.detail)
