"""Float64 programs by default: a planted float64 bug is found by a campaign at the default float64 share, minimised
to its op, and its repro fails; the same campaign on the control target finds nothing.

The campaign runs until it has drawn a float64 program with one of the planted ops on an input (the test finds that case's
index with the campaign's own configuration), so the test states its property rather than a stream's graphs."""

import json
import subprocess
import sys

from helpers import ROOT, cli_campaign

from numfuzz.address import CaseAddress
from numfuzz.corpus.make import make_case
from numfuzz.program.fine import is_fine
from numfuzz.share_table import share_default

TARGET_FILE = str(ROOT / "tests" / "fp64_target.py")
PLANTED = ("exp", "log", "sin", "cos", "tanh")
# float64 programs at their default share; the graphs that cost several (model-sized, blocks, windows of models) and
# gradients (which a float64 program never judges) off, so that the campaign's time goes to float64 programs
ARGS = ("--workers", "1", "--large-share", "0", "--blocks-share", "0", "--models-share", "0", "--grad-share", "0")
ARGS += ("--fp64-share", str(share_default("fp64")), "--no-confirm")


def _graphs_until_planted(cli, monkeypatch, target: str) -> int:
    """How many graphs the campaign draws up to its first float64 program with a planted op on an input (on a node's
    value, a saturated sigmoid say, every sample may give the planted op the same few values, which round alike)."""
    config = cli_campaign(cli, monkeypatch, "--import", TARGET_FILE, "--target", target, "--graphs", "1", *ARGS)
    assert config.gen.fp64 == share_default("fp64") > 0
    for index in range(1000):
        graph = make_case(CaseAddress.fresh(config.seed, index), config.run_for(target), config.gen, config.mix).graph
        if is_fine(graph) and any(node.op in PLANTED and node.args[0] < len(graph.inputs) for node in graph.nodes):
            return index + 1
    raise AssertionError("no float64 program through a planted op in 1000 graphs")


def _campaign(cli, monkeypatch, corpus, target: str):
    graphs = _graphs_until_planted(cli, monkeypatch, target)
    result = cli("fuzz", "--import", TARGET_FILE, "--target", target, "--graphs", graphs, "--corpus", corpus, *ARGS)
    assert result.exit_code == 0, result.output
    rows = json.loads(cli("corpus", corpus, "--json", "--import", TARGET_FILE).output or "[]")
    return [r for r in rows if "fp64" in r["dtypes"]]


def test_a_planted_float64_bug_is_found_minimised_and_its_repro_fails(cli, monkeypatch, tmp_path):
    groups = _campaign(cli, monkeypatch, tmp_path / "bug", "fp64bug")
    # every float64 group is a planted op's: the graphs before the first with one on an input may hold planted ops too
    assert groups and all(set(g["ops"]) & set(PLANTED) for g in groups), [g["group"] for g in groups]
    group = next((g for g in groups if g["minimized"] and g["cause"]), groups[0])
    assert group["minimized"] and group["cause"]
    smallest = json.loads(open(group["smallest"]).read())
    ops = [node["op"] for node in smallest["graph"]["nodes"]]
    assert len(ops) == 1 and ops[0] in PLANTED, ops
    out = tmp_path / "repro"
    assert cli("repro", group["smallest"], "--import", TARGET_FILE, "-o", out).exit_code == 0
    [script] = out.glob("repro_*.py")
    assert "the reference is finer than float64" in script.read_text()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode != 0 and "AssertionError" in done.stderr


def test_its_control_gives_nothing(cli, monkeypatch, tmp_path):
    assert _campaign(cli, monkeypatch, tmp_path / "control", "fp64bug:control") == []
