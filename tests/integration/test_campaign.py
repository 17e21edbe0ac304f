"""Campaign bookkeeping: resume after SIGKILL loses nothing, shards are disjoint, bad input fails in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import gated_target
import pytest
from helpers import GATED_TARGET, PLANTED_CRASHES, ROOT, cli_flags, plain_config

from numfuzz.address import case_seed
from numfuzz.campaign.journal import Journal, JournalError, parse_shard, shard_index
from numfuzz.campaign.loop import CampaignConfig, run_campaign
from numfuzz.corpus.make import make_case
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec

TANH_ONLY = GenConfig(max_nodes=3, max_dim=4, ops=("tanh",))
NAN = "thunder:crash_nan"  # every case is a finding: nothing can hide a lost one
GATED = "gated"  # the same without Thunder, and each worker waits at a gate after a few cases: a kill falls mid-case


def expected_names(seed: int, indices: list[int], samples: int, config: GenConfig = TANH_ONLY, target: str = NAN) -> set[str]:
    """File names of the findings these case indices must produce (content hashes)."""
    return {make_case(case_seed(seed, i), RunSpec(target, samples=samples), config).content_hash()[:16] + ".json" for i in indices}


def every_file_parses(corpus: Path) -> None:
    for path in corpus.rglob("*.json"):
        if not path.name.startswith("."):
            json.loads(path.read_text())


# --- shards and the journal (no workers) ---------------------------------------------------------


def test_shards_draw_disjoint_index_streams_that_cover_the_campaign():
    n = 4
    streams = [{shard_index((k, n), j) for j in range(50)} for k in range(n)]
    assert all(a.isdisjoint(b) for i, a in enumerate(streams) for b in streams[i + 1 :])
    assert set().union(*streams) == set(range(200))
    assert parse_shard("2/4") == (2, 4)
    for bad in ("4/4", "-1/2", "1", "a/b", "0/0"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_journal_frontier_and_out_of_order_completion(tmp_path):
    identity = plain_config(targets=("a", "b"), graphs=2, samples=4, gen=TANH_ONLY).identity()
    journal = Journal.open(tmp_path, identity, ["a", "b"])
    assert list(journal.pending(2)) == [(0, "a"), (0, "b"), (1, "a"), (1, "b")]
    assert not journal.mark_done(1, "a")
    assert journal.mark_done(1, "b")  # graph 1 complete, out of order
    assert journal.frontier == 0 and journal.graphs_done == 1
    journal.mark_done(0, "b")
    journal.mark_done(0, "a")
    assert journal.frontier == 2 and journal.partial == {}
    journal.mark_done(3, "a")
    journal.save()
    with pytest.raises(JournalError, match="another numfuzz"):
        Journal.open(tmp_path, identity, ["a", "b"])
    journal.close()
    again = Journal.open(tmp_path, identity, ["a", "b"])
    assert again.frontier == 2 and again.partial == {3: {"a"}} and again.runs == 2
    assert list(again.pending(4)) == [(2, "a"), (2, "b"), (3, "b")]
    again.close()


# --- real campaigns ------------------------------------------------------------------------------


def _shard_config(corpus: Path, shard: tuple[int, int], graphs: int) -> CampaignConfig:
    return plain_config(
        targets=[NAN], graphs=graphs, seed=3, corpus=corpus, samples=2, gen=TANH_ONLY, workers=1, shard=shard,
        first_case_grace=0.0, imports=(PLANTED_CRASHES,), minimize=False, progress=False,
    )  # fmt: skip


@pytest.mark.thunder  # the planted crashes are Thunder executors
def test_shards_share_a_corpus_without_overlap(tmp_path):
    first = run_campaign(_shard_config(tmp_path, (0, 2), 3))
    second = run_campaign(_shard_config(tmp_path, (1, 2), 3))
    names = {p.name for p in first.findings}, {p.name for p in second.findings}
    assert len(names[0]) == len(names[1]) == 3 and names[0].isdisjoint(names[1])
    assert names[0] | names[1] == expected_names(3, list(range(6)), 2)  # together: the unsharded campaign
    assert sorted(p.name for p in (tmp_path / "campaign").iterdir()) == sorted([first.directory.name, second.directory.name])
    assert "shard0of2" in first.directory.name and "shard1of2" in second.directory.name


def test_sigkill_mid_campaign_then_resume_loses_nothing(tmp_path, monkeypatch):
    corpus, graphs, samples = tmp_path / "corpus", 40, 4  # more than two workers do before the gate (2 x FREE)
    gate = tmp_path / "gate"
    gate.mkdir()
    monkeypatch.setenv(gated_target.GATE, str(gate))  # each worker waits there, mid-case, after FREE cases
    command = [
        sys.executable, "-m", "numfuzz", "fuzz", "--import", GATED_TARGET, "--target", GATED, "--ops", "tanh",
        "--max-nodes", "3", "--max-dim", "4", "--samples", str(samples), "--graphs", str(graphs), "--seed", "5",
        "--workers", "2", "--no-minimize", "--case-timeout", "3600", "--corpus", str(corpus),
        *cli_flags(TANH_ONLY),  # so that its cases are those `expected_names` makes
    ]  # fmt: skip
    findings = corpus / "findings"
    victim = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _wait_until(lambda: _journal(corpus).get("graphs_done", 0) >= 3, victim, "the campaign made no progress")  # a resumable run
    _wait_until(lambda: len(gated_target.waiting(gate)) == 2, victim, "the workers never reached the gate")
    children = _children(victim.pid)
    kinds = sorted("tracker" if b"resource_tracker" in _cmdline(pid) else "worker" if b"spawn_main" in _cmdline(pid) else "?" for pid in children)
    assert kinds == ["tracker", "worker", "worker"], children  # the two workers and multiprocessing's resource tracker
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    killed_at = len(iter_cases(findings))
    journal_at_kill = _journal(corpus)
    assert 3 <= journal_at_kill["graphs_done"] <= killed_at <= 2 * gated_target.FREE  # the journal never runs ahead of the files
    every_file_parses(corpus)
    deadline = time.monotonic() + 60  # the workers, held at the gate, die with their parent
    while [pid for pid in children if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in children if _alive(pid)] == []

    gated_target.open_gate(gate)
    resumed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"this run: {graphs - journal_at_kill['graphs_done']} graphs" in resumed.stdout  # resumed, not restarted
    every_file_parses(corpus)
    # (the search adds nothing to a nonfinite finding)
    assert {p.name for p in iter_cases(findings)} == expected_names(5, list(range(graphs)), samples, TANH_ONLY, GATED)
    (state_file,) = corpus.glob("campaign/*/state.json")
    state = json.loads(state_file.read_text())
    assert state["frontier"] == graphs and state["runs"] == 2
    assert state["stats"]["cases"] == graphs and state["stats"]["findings"] == graphs  # each counted once
    assert all(load_case(p).result["verdict"] == "nonfinite" for p in iter_cases(findings))

    # Done is done: a third run starts no worker and adds nothing.
    third = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert third.returncode == 0 and "this run: 0 graphs" in third.stdout
    assert len(iter_cases(findings)) == graphs


def _wait_until(done, proc: subprocess.Popen, what: str, limit_s: float = 240) -> None:
    """Waits for what the gate guarantees; the limit only bounds a failing test."""
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, what
        assert proc.poll() is None, "the campaign ended before it could be killed"
        time.sleep(0.05)


def _journal(corpus: Path) -> dict:
    found = list(corpus.glob("campaign/*/state.json"))
    return json.loads(found[0].read_text()) if found else {}


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--target", "eager"], "give a budget"),
        (["--target", "eager", "--graphs", "1", "--shard", "2/2"], "bad shard"),
        (["--target", "eager", "--graphs", "1", "--ops", "tanh,nope"], "unknown ops: nope"),
    ],
)
def test_fuzz_rejects_bad_input_in_one_line(cli, args, message):
    result = cli("fuzz", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.thunder
def test_new_findings_are_minimised_once_per_key(tmp_path):
    config = replace(_shard_config(tmp_path, (0, 1), 4), minimize=True)
    summary = run_campaign(config)
    state = json.loads((summary.directory / "state.json").read_text())
    keys = state["minimize_keys"]
    # Seed 3's four findings are a NaN tanh in bf16 or in fp32: one root cause whatever the dtype, minimised once.
    assert len(summary.findings) == 4 and state["minimize_queue"] == []
    assert keys == ['["thunder:crash_nan", "nonfinite_intermediate", ["tanh"]]'], keys
    assert (summary.stats.minimized, summary.stats.minimize_failed) == (1, 0)
    assert len(summary.minimized) == 1
    notes = json.loads((tmp_path / "minimize_notes.json").read_text())
    assert len(notes) == 3 and all("is minimised from another finding" in why for why in notes.values())  # the other three
    for path in summary.minimized:
        small = load_case(path)
        assert small.target == NAN and len(small.graph.nodes) == 1  # one tanh is all it takes


def test_the_workers_judge_by_the_bounds_the_configuration_hands_them(tmp_path):
    """A compiled hardtanh two ULPs off is a finding by the shipped bounds (hardtanh is exact) and, in fp32, rounding by a
    user's file that allows it four; the file reaches the workers in their settings, not through the environment. (In
    bf16 and fp16 the planted two ULPs are of that dtype, beyond four fp32 ULPs: findings either way.)"""
    from helpers import ROOT, campaign_seed, plain_config

    from numfuzz.campaign.loop import run_campaign
    from numfuzz.program.ops import infer_specs
    from numfuzz.program.space import GenConfig

    loose = tmp_path / "loose.toml"
    loose.write_text('[[bound]]\nops = ["hardtanh"]\nulp = 4.0\nsource = "a user\'s looser bound (test)"\n')
    gen = GenConfig(max_nodes=1, ops=("hardtanh",))
    seed = campaign_seed(gen, 6, lambda graphs: any(infer_specs(g)[-1].dtype == "fp32" for g in graphs))  # one in fp32 at least
    imports = (str(ROOT / "tests" / "hardtanh_up_target.py"),)
    common = dict(targets=("hardtanh_up",), graphs=6, seed=seed, samples=8, gen=gen, imports=imports, workers=1, progress=False, minimize=False)
    strict = run_campaign(plain_config(corpus=tmp_path / "strict", **common))
    relaxed = run_campaign(plain_config(corpus=tmp_path / "loose", bound_files=(str(loose),), **common))
    assert strict.stats.verdicts["hardtanh_up"]["within_rounding"] == 0 and len(strict.findings) == 6
    assert relaxed.stats.verdicts["hardtanh_up"]["within_rounding"] > 0 and len(relaxed.findings) < 6
    assert list((tmp_path / "loose" / "rounding").glob("*.json"))  # kept as within_rounding
