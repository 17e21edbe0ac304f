"""Quality: numfuzz finds deliberately broken executors, and replay confirms the findings."""

import json

import pytest
import torch
from helpers import FIRST_FIFTY_OPS, campaign_seed, cli_campaign, planted_bug_shows, read_json

from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors


# Model-sized graphs, blocks, models' windows and gradients cost several small graphs each: off, the campaign's time goes
# to the small graphs where these bugs show. The ops Thunder's executors trace (a later op's compile may fail there).
SMALL_GRAPHS = ("--large-share", "0", "--blocks-share", "0", "--models-share", "0", "--grad-share", "0", "--ops", ",".join(FIRST_FIFTY_OPS))
DRAWS = 2  # graphs of the campaign where the bug can show: a seed that draws fewer is no test of finding it


@pytest.mark.parametrize(
    "executor, symptom, graphs",
    [("bug_expm1", "less_accurate", 60), ("bug_cast", "less_accurate", 80), ("bug_softplus", "nonfinite", 60), ("bug_sum", "less_accurate", 80)],
)
def test_fuzz_finds_planted_bug(cli, monkeypatch, planted_bugs, tmp_path, executor, symptom, graphs):
    args = ("--import", planted_bugs, "--target", f"thunder:{executor}", "--graphs", graphs, "--corpus", tmp_path, "--samples", 8, *SMALL_GRAPHS)
    drawn = cli_campaign(cli, monkeypatch, *args).gen
    seed = campaign_seed(drawn, graphs, lambda drawn_graphs: sum(planted_bug_shows(executor, g) for g in drawn_graphs) >= DRAWS)
    result = cli("fuzz", *args, "--seed", seed)
    assert result.exit_code == 0, result.output
    found = sorted((tmp_path / "findings").glob("*.json"))
    symptoms = {read_json(p)["result"]["verdict"] for p in found}
    assert symptom in symptoms, (symptoms, result.output)
    case = next(p for p in found if read_json(p)["result"]["verdict"] == symptom)
    replay = cli("replay", case, "--import", planted_bugs, "--json")
    assert replay.exit_code == 1
    assert json.loads(replay.output)["verdict"] == symptom
    # The same case on a correct target is no finding.
    assert cli("replay", case, "--target", "thunder:torch").exit_code == 0


def test_a_dropped_round_trip_cast_is_less_accurate(planted_bugs):
    """y = x.to(bf16).float() * 3 in fp32: the reference rounds at the casts, bug_cast elides them."""
    nodes = (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32"), Node.make("mul_scalar", [2], value=3.0))
    graph = Graph((TensorSpec((64,), "fp32"),), nodes, (3,))
    samples = [[torch.randn(64, dtype=torch.float32)] for _ in range(4)]
    assert evaluate(graph, samples, resolve("thunder:bug_cast"), "cpu").verdict == Verdict.LESS_ACCURATE
    assert evaluate(graph, samples, resolve("thunder:torch"), "cpu").verdict == Verdict.EQUAL
