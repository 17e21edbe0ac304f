"""A worker lost outside its target (`targets.boundary`) is no finding: a signal there makes the case invalid, a hang
or running out of memory there is numfuzz's own error, kept under errors/, unless eager itself took a fifth of the limit (the
program's own cost); the same losses inside the target are findings."""

from __future__ import annotations

from numfuzz.address import CaseAddress
from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.recorder import ResultRecorder
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.pool import Lost, Task


def _recorded(tmp_path, verdict: Verdict, in_target: bool, eager_s: float = 0.0):
    config = CampaignConfig(targets=("eager",), graphs=1, corpus=tmp_path, seed=3)
    recorder = ResultRecorder(config, Journal.open(tmp_path, config.identity(), ["eager"]), lambda: None)
    task = Task("case", 0, "eager", 60.0, address=CaseAddress(3, 0))
    found = recorder.record_lost(Lost(task, verdict, "worker killed by SIGFPE", "", 0, in_target, eager_s))
    return found, sorted(p.parent.name for p in tmp_path.rglob("*.json") if p.parent.name in ("findings", "errors"))


def test_a_death_outside_the_target_is_invalid_a_hang_there_numfuzz_own_and_inside_a_finding(tmp_path):
    found, saved = _recorded(tmp_path / "signal", Verdict.SEGFAULT, in_target=False)
    assert found is None and saved == []
    found, saved = _recorded(tmp_path / "hang", Verdict.TIMEOUT, in_target=False)
    assert found is None and saved == ["errors"]
    # eager itself spent a fifth of the limit (polygamma(2, x) at x = -1.2e5 takes 2 ms an element, in fp32 as in fp64)
    found, saved = _recorded(tmp_path / "slow-program", Verdict.TIMEOUT, in_target=False, eager_s=13.0)
    assert found is None and saved == []
    found, saved = _recorded(tmp_path / "inside", Verdict.SEGFAULT, in_target=True)
    assert found is not None and saved == ["findings"]


def test_a_hang_in_the_target_where_eager_itself_took_a_fifth_of_the_limit_is_no_finding(tmp_path):
    """A polynomial of degree 2**31 - 2 takes eager 10 s a sample: compiled, the case times out doing the same work."""
    found, saved = _recorded(tmp_path / "slow", Verdict.TIMEOUT, in_target=True, eager_s=13.0)
    assert found is None and saved == []
    found, saved = _recorded(tmp_path / "quick", Verdict.TIMEOUT, in_target=True, eager_s=11.0)
    assert found is not None and saved == ["findings"]  # a 60 s limit gives the target 4 times eager's 11 s and more
    found, saved = _recorded(tmp_path / "signal", Verdict.SEGFAULT, in_target=True, eager_s=50.0)
    assert found is not None and saved == ["findings"]  # a death is the target's however slow eager was


def test_the_worker_adds_up_eagers_seconds_on_its_task_and_starts_again_at_the_next():
    import multiprocessing
    import time

    from numfuzz.targets import boundary

    flag = boundary.shared_flag(multiprocessing.get_context("spawn"))
    boundary.share(flag)
    try:
        for _ in range(2):
            with boundary.eager_running():
                time.sleep(0.05)
        with boundary.eager_running():  # a run under way counts: a worker killed in eager's own hang never leaves it
            time.sleep(0.05)
            assert 0.15 <= boundary.eager_seconds(flag) < 0.2
        with boundary.crossed():
            assert boundary.was_inside(flag)
            time.sleep(0.05)  # the target's time is not eager's
        assert not boundary.was_inside(flag)
        assert 0.15 <= boundary.eager_seconds(flag) < 0.2
        boundary.task_begins()
        assert boundary.eager_seconds(flag) == 0.0
    finally:
        boundary.share(None)
