"""A sweep's cell: a whole model that crashes is recorded with its message and no module of it is compiled alone."""

from __future__ import annotations

from pathlib import Path

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


def test_a_crashing_whole_model_is_recorded_without_judging_its_modules(tmp_path: Path):
    (tmp_path / "tiny_model.py").write_text(MODEL)
    COMPILED.clear()
    record = judge_cell(Cell(f"{tmp_path / 'tiny_model.py'}:tiny", "test_sweep_cell_raising", "fp32-autocast-bf16", "forward"), tmp_path)
    assert record["verdict"] == "crash_compile" and record["finding"] and "cannot compile anything" in record["detail"]
    assert COMPILED == ["compiled"] and record["module"] is None  # the whole model once; no module alone
    assert "each module alone" not in (tmp_path / record["explain"]).read_text()
