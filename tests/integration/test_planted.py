"""Quality: numfuzz finds deliberately broken executors, and replay confirms the findings."""

import json

import pytest
from helpers import read_json

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors


@pytest.mark.parametrize(
    "executor, symptom, graphs",
    [("bug_expm1", "less_accurate", 60), ("bug_cast", "less_accurate", 80), ("bug_softplus", "nonfinite", 60), ("bug_sum", "less_accurate", 80)],
)
def test_fuzz_finds_planted_bug(cli, planted_bugs, tmp_path, executor, symptom, graphs):
    result = cli("fuzz", "--import", planted_bugs, "--target", f"thunder:{executor}", "--graphs", graphs, "--corpus", tmp_path, "--samples", 8)
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
