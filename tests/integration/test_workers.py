"""Crash and hang isolation: planted executors that kill, hang, raise or poison become findings.

Uses Thunder's cheap torch executor path (examples/planted_crashes.py claims torch.tanh, and the
generator draws only tanh), so each case costs a fraction of a second; worker restarts dominate.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from helpers import PLANTED_CRASHES, plain_config

from numfuzz.address import CaseAddress
from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig
from numfuzz.run_spec import RunSpec
from numfuzz.workers.pool import Pool, Task, WorkerStartError
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.worker import serve

TANH_ONLY = GenConfig(max_nodes=3, max_dim=4, ops=("tanh",))
EXPECTED = {
    "thunder:crash_segv": Verdict.SEGFAULT,
    "thunder:crash_abort": Verdict.ABORT,
    "thunder:crash_hang": Verdict.TIMEOUT,
    "thunder:crash_raise": Verdict.CRASH_COMPILE,  # raised on the first call, which compiles
    "thunder:crash_nan": Verdict.NONFINITE,
    "thunder:crash_oom": Verdict.OOM,
}


@pytest.mark.thunder  # the planted executors are Thunder's
def test_every_planted_crash_is_a_finding_and_the_campaign_completes(tmp_path):
    config = plain_config(
        targets=list(EXPECTED),
        graphs=2,
        corpus=tmp_path,
        samples=4,
        gen=TANH_ONLY,
        workers=2,
        case_timeout=8.0,
        first_case_grace=0.0,
        memory_limit=1536 * 2**20,  # the hog's allocations fail here, long before the machine's limit
        imports=(PLANTED_CRASHES,),
        minimize=False,
        progress=False,
    )
    summary = run_campaign(config)

    assert summary.graphs_done == 2 and not summary.interrupted
    for target, verdict in EXPECTED.items():
        assert dict(summary.stats.verdicts[target]) == {verdict.value: 2}, target
    saved = [load_case(p) for p in iter_cases(tmp_path / "findings")]
    assert sorted((c.target, c.result["verdict"]) for c in saved) == sorted((t, v.value) for t, v in EXPECTED.items() for _ in range(2))
    by_target = {c.target: c for c in saved}
    assert "Segmentation fault" in by_target["thunder:crash_segv"].extra["worker_log"]
    assert "SIGABRT" in by_target["thunder:crash_abort"].result["detail"]
    assert "can't allocate memory" in by_target["thunder:crash_oom"].result["detail"]
    for case in saved:  # rebuilt or reported, every finding is a whole case that can be replayed
        assert case.tensors() and case.extra["campaign"]["index"] in (0, 1)
    restarts = summary.stats.restarts
    assert restarts["segfault"] == 2 and restarts["abort"] == 2 and restarts["timeout"] == 2
    assert summary.stats.coverage["thunder:crash_nan"]["tanh"] == 2
    lines = (summary.directory / "fuzzer_stats").read_text().splitlines()
    stats = {k.strip(): v.strip() for k, v in (line.split(" : ", 1) for line in lines)}
    assert stats["findings_segfault"] == "2" and stats["findings"] == "12" and stats["graphs_done"] == "2"
    assert (summary.directory / "numfuzz.log").read_text().count("finding:") == 12


def _settings(tmp_path: Path, targets: list[str], imports: tuple[str, ...] = (PLANTED_CRASHES,)) -> WorkerSettings:
    runs = tuple(RunSpec(t, "cpu", samples=4, imports=imports) for t in targets)
    return WorkerSettings(runs, GenConfig(max_nodes=3, max_dim=4, ops=("tanh",)))


def _run_one(pool: Pool, task: Task, limit_s: float = 120.0) -> list:
    deadline = time.monotonic() + limit_s
    events = []
    while time.monotonic() < deadline:
        idle = pool.idle()
        if idle and task is not None:
            pool.dispatch(idle[0], task)
            task = None
        events += pool.poll(0.2)
        if task is None and any(e.kind in ("reply", "lost") for e in events):
            return events
    raise AssertionError("no answer from the pool")


@pytest.mark.thunder
def test_rss_watchdog_kills_a_memory_hog_without_an_address_space_limit(tmp_path):
    # No RLIMIT_AS here (as on GPUs): the parent's watchdog must catch the growth.
    pool = Pool(1, _settings(tmp_path, ["thunder:crash_oom", "thunder:torch"]), tmp_path, memory_limit=1536 * 2**20, entry=serve)
    try:
        events = _run_one(pool, Task("case", 0, "thunder:crash_oom", timeout=60.0, address=CaseAddress(1)))
        lost = [e.lost for e in events if e.kind == "lost"]
        assert len(lost) == 1 and lost[0].verdict is Verdict.OOM
        assert "passed the limit" in lost[0].detail
        # the pool replaced the worker, and the replacement serves the next case
        events = _run_one(pool, Task("case", 1, "thunder:torch", timeout=60.0, address=CaseAddress(2, 1)))
        replies = [e.reply for e in events if e.kind == "reply"]
        assert len(replies) == 1 and replies[0].outcome["verdict"] in ("equal", "more_accurate")
    finally:
        pool.close()


def test_workers_that_cannot_start_stop_the_campaign_with_one_line_and_their_log_says_why(tmp_path):
    settings = _settings(tmp_path, ["eager"], imports=("numfuzz_no_such_module",))
    with pytest.raises(WorkerStartError, match="workers cannot start: ModuleNotFoundError") as raised:
        pool = Pool(1, settings, tmp_path, entry=serve)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                pool.poll(0.2)
        finally:
            pool.close()
    log = Path(str(raised.value).rsplit("(see ", 1)[1].rstrip(")"))  # the log the one line points to
    assert "Traceback" in log.read_text() and "No module named 'numfuzz_no_such_module'" in log.read_text()


@pytest.mark.thunder
def test_a_worker_that_grew_too_much_is_replaced_without_losing_a_case(tmp_path):
    config = plain_config(
        targets=["thunder:torch"], graphs=3, corpus=tmp_path, samples=2, gen=TANH_ONLY, workers=1,
        recycle_growth=0, minimize=False, progress=False,
    )  # fmt: skip
    summary = run_campaign(config)
    assert summary.graphs_done == 3 and summary.stats.cases == 3 and summary.stats.errors == 0
    restarts = summary.stats.restarts
    assert set(restarts) == {"recycled"} and restarts["recycled"] >= 2  # a zero allowance: a fresh worker per case
    assert not any(v for v in summary.stats.by_symptom().values())


def test_recycling_measures_growth_from_the_warm_level_not_the_first_case():
    from numfuzz.workers.defaults import WARMUP_CASES
    from numfuzz.workers.recycle import RecyclePolicy

    mib = 2**20
    policy = RecyclePolicy(growth=100 * mib)
    # the first case runs on a light target; the second loads a compiler (+150 MiB): not growth
    warmup = [500 * mib, 650 * mib] + [660 * mib] * (WARMUP_CASES - 2)
    assert not any(policy.should_leave(rss) for rss in warmup)
    assert policy.warm == 660 * mib
    assert not policy.should_leave(759 * mib) and policy.should_leave(760 * mib)
    assert not RecyclePolicy(growth=None).should_leave(10_000 * mib)
    assert RecyclePolicy(growth=None, cap=800 * mib).should_leave(801 * mib)
    assert RecyclePolicy(growth=0).should_leave(500 * mib)  # zero allowance: leave after every case
    assert not RecyclePolicy(growth=0).should_leave(None)  # RSS unknown (not Linux): never


def test_a_ready_worker_reports_its_targets_batch_sizes(tmp_path):
    # the campaign takes its batch sizes from this; the parent never resolves a target itself
    from numfuzz.program.dtypes import PROGRAM_DTYPES
    from numfuzz.targets import resolve

    pool = Pool(1, _settings(tmp_path, ["eager", "inductor"], imports=()), tmp_path, entry=serve)
    try:
        deadline, ready = time.monotonic() + 120, []
        while not ready and time.monotonic() < deadline:
            ready = [e.reply for e in pool.poll(0.2) if e.kind == "ready"]
        assert ready, "the worker never said it was ready"
        targets = ready[0].targets
        assert targets["inductor"].batch_default == resolve("inductor").batch_default > 1 and targets["eager"].batch_default == 1
        assert set(targets["inductor"].min_elements) == set(PROGRAM_DTYPES)
        # its C++ builds link with gold where the machine has one that links (`workers.compile_env`)
        said = pool.workers[0].log_path.read_text()
        assert ("C++ builds link with" in said) == (shutil.which("ld.gold") is not None and "COMPILER_PATH" not in os.environ)
    finally:
        pool.close()


def test_a_worker_lost_outside_its_target_is_told_from_one_lost_inside(tmp_path):
    """eager's own integer division traps (SIGFPE) where no target ran: the pool says so, and the campaign keeps no
    finding of it; the same death inside the target is the target's."""
    from dying_worker import serve as dying

    pool = Pool(1, _settings(tmp_path, ["eager"], imports=()), tmp_path, entry=dying)
    try:
        lost = {}
        for where in ("inside", "outside"):
            events = _run_one(pool, Task("evaluate", 0, where, 60.0, {}))
            found = next(e.lost for e in events if e.kind == "lost")
            assert found.verdict is Verdict.SEGFAULT and "SIGFPE" in found.detail
            lost[where] = found.in_target
    finally:
        pool.close()
    assert lost == {"inside": True, "outside": False}
