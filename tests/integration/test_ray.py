"""Campaigns on a local Ray cluster (loopback only): the same findings as the local pool, hosts killed, the driver killed.

Each test starts its own Ray instance through `--ray local` and the campaign shuts it down; a
fixture makes sure nothing it started is left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable

import gated_target
import pytest
from helpers import GATED_TARGET, PLANTED_CRASHES, ROOT, cli_flags, plain_config

from numfuzz.address import case_seed
from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.make import make_case
from numfuzz.corpus.store import iter_cases
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec

TANH_ONLY = GenConfig(max_nodes=3, max_dim=4, ops=("tanh",))
NAN = "thunder:crash_nan"  # every case a finding: a lost case would show
GATED = "gated"  # the same, and each worker waits at a gate after a few cases: the kills fall mid-case
GRAPHS = 48  # more than the workers of any two runs can do before they wait at the gate (2 x FREE each)
RAY_AGENTS = ("ray::DashboardAgent", "ray::RuntimeEnvAgent")  # Ray's own helpers, which may take a minute to leave


@pytest.fixture
def ray_tag(monkeypatch):
    """Ray must be installed; processes of the Ray instance a test starts carry this tag in their environment."""
    pytest.importorskip("ray")
    tag = uuid.uuid4().hex
    monkeypatch.setenv("NUMFUZZ_TEST_RAY", tag)
    yield tag
    import ray

    if ray.is_initialized():
        ray.shutdown()
    for pid in _tagged(tag):  # a failed test must not leave a cluster behind
        os.kill(pid, signal.SIGKILL)


def _tagged(tag: str, title: str = "") -> list[int]:
    """Live processes started under this test's tag (Ray's, its actors', their workers'), but multiprocessing's own helper."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"NUMFUZZ_TEST_RAY={tag}".encode() not in (proc / "environ").read_bytes() or int(proc.name) == os.getpid():
                continue
            cmdline = (proc / "cmdline").read_bytes()
            if cmdline.startswith(title.encode()) and b"resource_tracker" not in cmdline and (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(proc.name))
        except (OSError, IndexError):
            continue
    return found


def _left_behind(tag: str, limit_s: float = 20.0, ignore: tuple[str, ...] = ()) -> list[str]:
    """What still runs under the tag once its processes had time to notice that their parents are gone."""
    deadline = time.monotonic() + limit_s
    while True:
        left = []
        for pid in _tagged(tag):
            try:
                name = Path(f"/proc/{pid}/cmdline").read_bytes()[:120].decode(errors="replace")
            except OSError:
                continue  # gone meanwhile
            if not (ignore and name.startswith(ignore)):
                left.append(name)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def _names(seed: int, graphs: int, samples: int) -> set[str]:
    return {make_case(case_seed(seed, i), RunSpec(GATED, samples=samples), TANH_ONLY).content_hash()[:16] + ".json" for i in range(graphs)}


def _journal(corpus: Path) -> dict:
    found = list(corpus.glob("campaign/*/state.json"))
    return json.loads(found[0].read_text()) if found else {}


# the planted deaths and the verdict each gives where the machine is not too busy for it
KILLED = {"thunder:crash_segv": "segfault", "thunder:crash_abort": "abort", "thunder:crash_hang": "timeout", "thunder:crash_oom": "oom"}


@pytest.mark.thunder  # the planted crashes are Thunder executors
def test_ray_campaign_finds_what_the_local_pool_finds(tmp_path, ray_tag):
    targets = [NAN, "thunder:crash_segv", "thunder:crash_abort", "thunder:crash_hang", "thunder:crash_oom", "thunder:torch"]
    summaries = {}
    for name, address in (("local", None), ("ray", "local")):
        config = plain_config(
            targets=list(targets), graphs=1, seed=4, corpus=tmp_path / name, samples=4, gen=TANH_ONLY, workers=2, ray=address,
            case_timeout=4.0, first_case_grace=0.0, memory_limit=1536 * 2**20, imports=(PLANTED_CRASHES,), minimize=False, progress=False,
        )  # fmt: skip
        summaries[name] = run_campaign(config)
    local, ray_run = summaries["local"], summaries["ray"]
    assert ray_run.graphs_done == local.graphs_done == 1
    # Each planted death ends its case as itself, or, on a machine busy enough that compiling and hoarding take longer than
    # the case's 4 s, as a timeout: the worker is killed either way, and Ray reports what the local pool does.
    for summary in (local, ray_run):
        for target, death in KILLED.items():
            assert dict(summary.stats.verdicts[target]) in ({death: 1}, {"timeout": 1}), (target, dict(summary.stats.verdicts[target]))
        killed = {v for t in KILLED for v in summary.stats.verdicts[t]}
        assert all(summary.stats.restarts[v] >= 1 for v in killed if v != "oom"), dict(summary.stats.restarts)
    alive = [t for t in targets if t not in KILLED]
    assert {t: dict(ray_run.stats.verdicts[t]) for t in alive} == {t: dict(local.stats.verdicts[t]) for t in alive}
    assert {p.name for p in ray_run.findings} == {p.name for p in local.findings}
    assert "2 workers on the Ray cluster at local" in (ray_run.directory / "numfuzz.log").read_text()
    assert _left_behind(ray_tag) == []  # the campaign shut its Ray instance down


def _fuzz(corpus: Path, graphs: int, seed: int) -> list[str]:
    """The CLI's campaign on the gated target, with no seams, search or compile modes, so that its graphs are those `_names` draws.

    No case may time out while it waits at the gate, however long the machine takes to get the other worker there.
    """
    return [
        sys.executable, "-m", "numfuzz", "fuzz", "--import", GATED_TARGET, "--target", GATED, "--ops", "tanh", "--max-nodes", "3",
        "--max-dim", "4", "--samples", "4", "--graphs", str(graphs), "--seed", str(seed), "--ray", "local", "--workers", "2",
        "--search", "0", *cli_flags(TANH_ONLY),
        "--no-minimize", "--case-timeout", "3600", "--corpus", str(corpus),
    ]  # fmt: skip


def _gate(tmp_path: Path, name: str, monkeypatch) -> Path:
    """A closed gate for the next campaign started (its processes inherit the environment)."""
    folder = tmp_path / name
    folder.mkdir()
    monkeypatch.setenv(gated_target.GATE, str(folder))
    return folder


def _wait_until(done: Callable[[], bool], proc: subprocess.Popen, what: str, limit_s: float) -> None:
    """Waits for what the gate guarantees; the limit only bounds a failing test."""
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, what
        assert proc.poll() is None, "the campaign ended too early"
        time.sleep(0.05)


def _wait_at_gate(corpus: Path, gate: Path, graphs_done: int, proc: subprocess.Popen, limit_s: float = 180) -> None:
    """Until the journal shows `graphs_done` and both workers wait at the gate, each in the middle of a case."""
    _wait_until(lambda: _journal(corpus).get("graphs_done", 0) >= graphs_done, proc, "the campaign made no progress", limit_s)
    _wait_until(lambda: len(gated_target.waiting(gate)) == 2, proc, "the workers never reached the gate", limit_s)


def _wait_for_log(corpus: Path, line: str, proc: subprocess.Popen, limit_s: float = 60) -> None:
    def logged() -> bool:
        return any(line in log.read_text() for log in corpus.glob("campaign/*/numfuzz.log"))

    _wait_until(logged, proc, f"the campaign never logged {line!r}", limit_s)


def test_a_host_killed_mid_case_loses_no_case(tmp_path, ray_tag, monkeypatch):
    corpus, graphs = tmp_path / "corpus", GRAPHS
    gate = _gate(tmp_path, "gate", monkeypatch)
    run = subprocess.Popen(_fuzz(corpus, graphs, 6), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    _wait_at_gate(corpus, gate, 3, run)
    _wait_for_log(corpus, "each Ray actor now holds up to 4", run)  # tasks wait behind the running one: they must not be lost either
    hosts = _tagged(ray_tag, "ray::WorkerHost")
    assert len(hosts) == 2, hosts
    os.kill(hosts[0], signal.SIGKILL)  # as when its node goes away, in the middle of a case
    gated_target.open_gate(gate)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err[-2000:]
    assert {p.name for p in iter_cases(corpus / "findings")} == _names(6, graphs, 4)
    stats = _journal(corpus)["stats"]
    assert stats["cases"] == graphs and stats["findings"] == graphs  # each case once: re-run, not lost or doubled
    assert stats["restarts"] == {"host lost": 1}
    assert _left_behind(ray_tag) == []


def test_the_driver_stopped_or_killed_then_resumed_loses_nothing(tmp_path, ray_tag, monkeypatch):
    corpus, graphs = tmp_path / "corpus", GRAPHS
    command = _fuzz(corpus, graphs, 8)
    gate = _gate(tmp_path, "gate-stopped", monkeypatch)
    stopped = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    _wait_at_gate(corpus, gate, 3, stopped)
    stopped.send_signal(signal.SIGTERM)  # as Slurm does at the time limit: a graceful stop, Ray's handlers notwithstanding
    out, err = stopped.communicate(timeout=60)
    assert stopped.returncode == 130 and "(interrupted)" in out, err[-2000:]
    assert _left_behind(ray_tag, ignore=RAY_AGENTS) == []  # the workers waiting at the gate went down with their hosts
    at_stop = _journal(corpus)["graphs_done"]
    assert 3 <= at_stop <= 2 * gated_target.FREE

    gate = _gate(tmp_path, "gate-killed", monkeypatch)
    victim = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _wait_at_gate(corpus, gate, at_stop + 3, victim)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    at_kill = _journal(corpus)["graphs_done"]
    assert at_stop + 3 <= at_kill <= at_stop + 2 * gated_target.FREE < graphs
    # Ray's processes, its actors and their workers share the driver's fate. Ray's agents may take a
    # minute to notice on a loaded machine; they run nothing of ours, and the fixture ends them.
    assert _left_behind(ray_tag, 30, ignore=RAY_AGENTS) == []

    gated_target.open_gate(_gate(tmp_path, "gate-resumed", monkeypatch))
    resumed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"this run: {graphs - at_kill} graphs" in resumed.stdout
    assert {p.name for p in iter_cases(corpus / "findings")} == _names(8, graphs, 4)
    state = _journal(corpus)
    assert state["frontier"] == graphs and state["runs"] == 3 and state["stats"]["findings"] == graphs


def test_ray_missing_is_one_line_and_exit_2(cli, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    result = cli("fuzz", "--target", "eager", "--graphs", "1", "--ray", "local")
    assert result.exit_code == 2 and "pip install 'numfuzz[ray]'" in result.output and len(result.output.strip().splitlines()) == 1


def test_an_unreachable_cluster_is_one_line_and_exit_2(cli, ray_tag, tmp_path):
    result = cli("fuzz", "--target", "eager", "--graphs", "1", "--ray", "127.0.0.1:1", "--corpus", tmp_path)
    assert result.exit_code == 2 and "cannot reach the Ray cluster at 127.0.0.1:1" in result.output and "Traceback" not in result.output
