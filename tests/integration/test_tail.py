"""A campaign's minimisation tail: hangs minimised to their op in bounded time, visibly, and resumable.

The planted crash_hang_exp executor (examples/planted_crashes.py) hangs on `exp`; the rest of each
graph runs on Thunder's torch executor. The campaign's seed is the first whose four graphs hold one
hang, of three ops or more, among three graphs without exp: the hang has neighbours whose run times
set its candidates' time limits, and ops to shed on the way to `exp`.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import PLANTED_CRASHES, ROOT, campaign_graphs, campaign_seed, cli_flags, plain_config

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.case import recorded_outcome
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.generator import GenConfig
from numfuzz.repro.writer import write_repro
from numfuzz.targets import resolve

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors

HANG = "thunder:crash_hang_exp"
GEN = GenConfig(max_nodes=4, max_dim=4, ops=("exp", "tanh", "add", "mul"))
CASE_TIMEOUT = 10.0


def _hang_ops(graphs) -> int:
    """The ops of the one graph with exp among `graphs` (0: none, or more than one)."""
    hangs = [g for g in graphs if any(n.op == "exp" for n in g.nodes)]
    return len(hangs[0].nodes) if len(hangs) == 1 else 0


SEED = campaign_seed(GEN, 4, lambda graphs: _hang_ops(graphs) >= 3)
HANG_OPS = _hang_ops(campaign_graphs(SEED, GEN, 4))


def test_a_hang_is_minimised_to_its_op_within_a_bound_and_the_log_shows_it(tmp_path):
    config = plain_config(
        targets=[HANG], graphs=4, seed=SEED, corpus=tmp_path, samples=4, gen=GEN, workers=2, case_timeout=CASE_TIMEOUT,
        imports=(PLANTED_CRASHES,), progress=False,
    )  # fmt: skip
    summary = run_campaign(config)
    assert summary.stats.verdicts[HANG]["timeout"] == 1 and summary.stats.minimized == 1
    (small,) = [load_case(p) for p in summary.minimized]
    assert [n.op for n in small.graph.nodes] == ["exp"] and small.result["verdict"] == "timeout"
    # bounded: the candidates had shorter limits than the case timeout (their neighbours' run times set them; the old
    # tail waited the full timeout for each hung one), and only the smallest was confirmed at the full one
    assert small.extra["minimize"]["hang_confirmed_s"] == CASE_TIMEOUT
    finding = summary.findings[0].stem
    log = (summary.directory / "numfuzz.log").read_text()
    assert f"minimising {finding[:8]} (timeout): confirming the finding" in log
    assert f"minimising {finding[:8]} (timeout): " in log and "candidates (last: timeout, kept)" in log
    lines = (summary.directory / "fuzzer_stats").read_text().splitlines()
    stats = {k.strip(): v.strip() for k, v in (line.split(" : ", 1) for line in lines)}
    assert int(stats["minimize_candidates"]) >= 1 and stats["minimized"] == "1"

    # The repro hangs on its own: the script is still running when its time is up.
    files = write_repro(small, resolve(HANG), "cpu", tmp_path / "repro", [PLANTED_CRASHES], outcome=recorded_outcome(small))
    try:
        subprocess.run([sys.executable, str(files.script)], cwd=tmp_path, capture_output=True, timeout=60)
        raise AssertionError("the repro of a hang finished")
    except subprocess.TimeoutExpired:
        pass


def _command(corpus: Path, tail: float) -> list[str]:
    return [
        sys.executable, "-m", "numfuzz", "fuzz", "--import", PLANTED_CRASHES, "--target", HANG, "--ops", "exp,tanh,add,mul",
        "--max-nodes", "4", "--max-dim", "4", "--samples", "4", "--graphs", "4", "--seed", str(SEED), "--workers", "2",
        "--case-timeout", str(CASE_TIMEOUT), "--minimize-tail", str(tail), "--corpus", str(corpus),
        "--search", "0", *cli_flags(GEN),  # the graphs of GEN: one hang in 4
    ]  # fmt: skip


def test_sigterm_in_the_tail_keeps_the_smallest_case_and_the_next_run_finishes_it(tmp_path):
    victim = subprocess.Popen(_command(tmp_path, 300), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    deadline = time.monotonic() + 300
    log = ""
    while not re.search(rf"kept\), [2-{HANG_OPS - 1}] of {HANG_OPS} ops", log):  # under way: its ops go down one by one to 1
        assert time.monotonic() < deadline and victim.poll() is None, log[-2000:]
        time.sleep(0.2)
        logs = list(tmp_path.glob("campaign/*/numfuzz.log"))
        log = logs[0].read_text() if logs else ""
    victim.send_signal(signal.SIGTERM)
    assert victim.wait(timeout=60) == 130
    (state_file,) = tmp_path.glob("campaign/*/state.json")
    state = json.loads(state_file.read_text())
    (entry,) = state["minimize_queue"]
    assert state["stats"]["minimize_partial"] == 1 and state["stats"]["minimized"] == 0
    partial = load_case(tmp_path / "minimized" / f"{entry['partial']}.json")  # the smallest case so far
    assert partial.extra["original"]["hash"].startswith(entry["finding"])

    resumed = subprocess.run(_command(tmp_path, 300), capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    state = json.loads(state_file.read_text())
    assert state["minimize_queue"] == [] and state["stats"]["minimized"] == 1
    (final,) = [load_case(p) for p in iter_cases(tmp_path / "minimized")]  # the partial gave way to it
    assert [n.op for n in final.graph.nodes] == ["exp"] and final.extra["original"]["hash"].startswith(entry["finding"])


def test_a_spent_tail_ends_the_campaign_and_leaves_the_rest_queued(tmp_path):
    done = subprocess.run(_command(tmp_path, 0), capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (state_file,) = tmp_path.glob("campaign/*/state.json")
    state = json.loads(state_file.read_text())
    assert state["graphs_done"] == 4 and state["stats"]["findings"] == 1
    assert len(state["minimize_queue"]) == 1 and state["stats"]["minimized"] == 0  # waits for the next run
