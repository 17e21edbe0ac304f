"""Inductor's vector ISA checks: one a process passes is taken by the processes after it, one that fails is made again."""

from __future__ import annotations

import pytest

from numfuzz.workers.vec_isa import machine_key, remember_vec_isa_checks

cpu_vec_isa = pytest.importorskip("torch._inductor.cpu_vec_isa")
needs_flags = pytest.mark.skipif(machine_key("x") is None, reason="no /proc/cpuinfo flags here")


def _a_process_with(monkeypatch, answers: dict[str, bool], made: list[str]) -> None:
    """A fresh process's Inductor, whose own check answers from `answers` and records each one it makes, numfuzz's memory on it."""

    def check_build(isa, code: str) -> bool:
        made.append(code)
        return answers[code]

    monkeypatch.setattr(cpu_vec_isa.VecISA, "check_build", check_build)


@needs_flags
def test_a_passed_check_is_made_once_across_processes_and_a_failed_one_again(monkeypatch, tmp_path):
    made: list[str] = []
    isa = cpu_vec_isa.VecAVX2()
    for _ in range(2):  # two processes, one after the other
        _a_process_with(monkeypatch, {"passes": True, "fails": False}, made)
        assert remember_vec_isa_checks(tmp_path)
        assert isa.check_build("passes") and not isa.check_build("fails")
    assert made == ["passes", "fails", "fails"]
    assert len(list(tmp_path.iterdir())) == 1  # only the passed check is kept


@needs_flags
def test_a_check_passed_with_other_flags_or_another_torch_is_made_again(monkeypatch, tmp_path):
    made: list[str] = []
    _a_process_with(monkeypatch, {"code": True}, made)
    remember_vec_isa_checks(tmp_path)
    assert cpu_vec_isa.VecAVX2().check_build("code") and cpu_vec_isa.VecAVX512().check_build("code")
    assert made == ["code", "code"]  # each ISA's flags its own check
    assert machine_key("2.11.0") != machine_key("2.9.1")
