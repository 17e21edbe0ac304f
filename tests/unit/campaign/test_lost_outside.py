"""A worker lost outside its target (`targets.boundary`) is no finding: a signal there makes the case invalid, a hang
or running out of memory there is numfuzz's own error, kept under errors/; the same losses inside the target are findings."""

from __future__ import annotations

from numfuzz.address import CaseAddress
from numfuzz.campaign.config import CampaignConfig
from numfuzz.campaign.journal import Journal
from numfuzz.campaign.recorder import ResultRecorder
from numfuzz.judge.verdicts import Verdict
from numfuzz.workers.pool import Lost, Task


def _recorded(tmp_path, verdict: Verdict, in_target: bool):
    config = CampaignConfig(targets=("eager",), graphs=1, corpus=tmp_path, seed=3)
    recorder = ResultRecorder(config, Journal.open(tmp_path, config.identity(), ["eager"]), lambda: None)
    task = Task("case", 0, "eager", 60.0, address=CaseAddress(3, 0))
    found = recorder.record_lost(Lost(task, verdict, "worker killed by SIGFPE", "", 0, in_target))
    return found, sorted(p.parent.name for p in tmp_path.rglob("*.json") if p.parent.name in ("findings", "errors"))


def test_a_death_outside_the_target_is_invalid_a_hang_there_numfuzz_own_and_inside_a_finding(tmp_path):
    found, saved = _recorded(tmp_path / "signal", Verdict.SEGFAULT, in_target=False)
    assert found is None and saved == []
    found, saved = _recorded(tmp_path / "hang", Verdict.TIMEOUT, in_target=False)
    assert found is None and saved == ["errors"]
    found, saved = _recorded(tmp_path / "inside", Verdict.SEGFAULT, in_target=True)
    assert found is not None and saved == ["findings"]
