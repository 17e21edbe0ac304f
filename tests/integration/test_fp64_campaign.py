"""Float64 programs by default: a planted float64 bug is found by a campaign at the default float64 share, minimised
to its op, and its repro fails; the same campaign on the control target finds nothing."""

import json
import subprocess
import sys

import pytest
from helpers import LATER_SHARES_OFF, ROOT

from numfuzz.campaign.defaults import DEFAULT_FP64_SHARE

TARGET_FILE = str(ROOT / "tests" / "fp64_target.py")
GRAPHS = "160"


def _campaign(cli, corpus, target: str):
    # the other later shares off, as in the other campaign tests: the float64 share stays at its default
    result = cli(
        "fuzz", "--import", TARGET_FILE, "--target", target, "--graphs", GRAPHS, "--workers", "1", "--corpus", corpus, *LATER_SHARES_OFF, "--no-confirm"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(cli("corpus", corpus, "--json", "--import", TARGET_FILE).output or "[]")
    return [r for r in rows if "fp64" in r["dtypes"]]


def test_a_planted_float64_bug_is_found_minimised_and_its_repro_fails(cli, tmp_path):
    assert DEFAULT_FP64_SHARE > 0
    [group] = _campaign(cli, tmp_path / "bug", "fp64bug")
    assert group["minimized"] and group["cause"]
    smallest = json.loads(open(group["smallest"]).read())
    ops = [node["op"] for node in smallest["graph"]["nodes"]]
    assert len(ops) == 1 and ops[0] in ("exp", "log", "sin", "cos", "tanh"), ops
    out = tmp_path / "repro"
    assert cli("repro", group["smallest"], "--import", TARGET_FILE, "-o", out).exit_code == 0
    [script] = out.glob("repro_*.py")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode != 0 and "AssertionError" in done.stderr


@pytest.mark.parametrize("target", ["fp64bug:control"])
def test_its_control_gives_nothing(cli, tmp_path, target):
    assert _campaign(cli, tmp_path / "control", target) == []
