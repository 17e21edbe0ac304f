"""A sweep's cell: a whole model that crashes is recorded with its message and no module of it is compiled alone; a
target that leaves grad mode off fails no later cell."""

from __future__ import annotations

from pathlib import Path

import torch

from numfuzz.check import CallableTarget
from numfuzz.sweep.cell import judge_cell
from numfuzz.sweep.grid import Cell
from numfuzz.targets import register

MODEL = """
import torch


def tiny():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 8))
    return model, (torch.randn(4, 8),)
"""

COMPILED: list[str] = []


def _raising(fn):
    COMPILED.append("compiled")
    raise RuntimeError("this compiler cannot compile anything")


register("test_sweep_cell_raising", lambda arg: CallableTarget(_raising, "test_sweep_cell_raising"), "a compiler that always raises (a test's)")


def _leaving_grad_mode_off(fn):
    def run(*args):
        with torch.enable_grad():  # its own calls build their graphs, as Thunder's do
            out = fn(*args)
        torch.set_grad_enabled(False)  # as Thunder's jit leaves it after a cache hit of a split no_grad region's tail
        return out

    torch.set_grad_enabled(False)  # compiling leaves it off too: outside any call, where no call's state is set back
    return run


register("test_sweep_cell_grad_off", lambda arg: CallableTarget(_leaving_grad_mode_off, "test_sweep_cell_grad_off"), "leaves grad mode off (a test's)")


def test_a_crashing_whole_model_is_recorded_without_judging_its_modules(tmp_path: Path):
    (tmp_path / "tiny_model.py").write_text(MODEL)
    COMPILED.clear()
    record = judge_cell(Cell(f"{tmp_path / 'tiny_model.py'}:tiny", "test_sweep_cell_raising", "fp32-autocast-bf16", "forward"), tmp_path)
    assert record["verdict"] == "crash_compile" and record["finding"] and "cannot compile anything" in record["detail"]
    assert COMPILED == ["compiled"] and record["module"] is None  # the whole model once; no module alone
    assert "each module alone" not in (tmp_path / record["explain"]).read_text()


def test_a_target_that_leaves_grad_mode_off_is_a_state_finding_and_fails_no_later_cell_s_training_step(tmp_path: Path):
    """Thunder's jit leaves grad mode as it found it after a cache hit (docs/issues/thunder_grad_mode_after_cache_hit_is_the_entry_mode.py):
    each such cell is a `state` finding, and a cell after one whose compiling left grad mode off still judges its training
    step (without the reset, its eager step fails: "element 0 of tensors does not require grad", and the cell is invalid)."""
    (tmp_path / "tiny_model.py").write_text(MODEL)
    cell = Cell(f"{tmp_path / 'tiny_model.py'}:tiny", "test_sweep_cell_grad_off", "bf16", "train")
    try:
        records = [judge_cell(cell, tmp_path) for _ in range(2)]
        assert not torch.is_grad_enabled()  # the planted compile-time leak took effect
    finally:
        torch.set_grad_enabled(True)
    assert [r["verdict"] for r in records] == ["state", "state"], [r["detail"] for r in records]
    assert "grad mode off where eager leaves it on" in records[1]["detail"]
