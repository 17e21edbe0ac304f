"""Quality: numfuzz finds deliberately broken executors, and replay confirms the findings.

A campaign runs up to its first case that holds what the planted bug needs and shows it judged alone (the test finds
that case's index with the campaign's own configuration): it states what the campaign must find, not a stream's graphs."""

import json

import pytest
import torch
from helpers import cli_campaign, planted_bug_shows, read_json, until_shown
from planted_findings import AROUND, PLANTED

from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors


# Model-sized graphs, blocks, models' windows and gradients cost several small graphs each: off, the campaign's time goes
# to the small graphs where these bugs show, drawn from the planted op and the few ops around it that the analysis tests
# draw too (among the first fifty ops, seed 0 drew no cast's round trip in 3000 graphs).
SMALL_GRAPHS = ("--large-share", "0", "--blocks-share", "0", "--models-share", "0", "--grad-share", "0")


@pytest.mark.parametrize(
    "executor, symptom", [("bug_expm1", "less_accurate"), ("bug_cast", "less_accurate"), ("bug_softplus", "nonfinite"), ("bug_sum", "less_accurate")]
)
def test_fuzz_finds_planted_bug(cli, monkeypatch, planted_bugs, tmp_path, executor, symptom):
    target = f"thunder:{executor}"
    ops = ",".join(sorted(set(AROUND) | {PLANTED[executor][0]}))
    args = ("--import", planted_bugs, "--target", target, "--corpus", tmp_path, "--samples", 8, "--ops", ops, *SMALL_GRAPHS)
    config = cli_campaign(cli, monkeypatch, *args, "--graphs", 1)
    seed, graphs = until_shown(config, target, lambda graph: planted_bug_shows(executor, graph), symptom)
    result = cli("fuzz", *args, "--seed", seed, "--graphs", graphs)
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
