"""`numfuzz model`: a planted bug in a real model's block is found and placed at its module; the same block compiled
by Inductor is no finding (its one difference, RMSNorm's cast back elided, is the known cast elision)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
import torch
from helpers import ROOT

PLANTED_MODEL = ROOT / "examples" / "planted_model.py"
SPEC = f"{PLANTED_MODEL}:decoder_block"


def test_a_backend_that_drops_rmsnorm_s_upcast_is_found_at_the_norm(cli):
    result = cli("model", SPEC, "--target", "drop_upcast", "--import", PLANTED_MODEL, "--json")
    assert result.exit_code == 1, result.output
    found = json.loads(result.output[result.output.index("{") :])
    assert found["finding"] and found["parts_at"] == "norm"
    norm = next(m for m in found["modules"] if m["path"] == "norm")
    assert norm["verdict"] == "less_accurate" and not norm["known"]
    assert all(m["verdict"] in ("equal", "more_accurate") for m in found["modules"] if m["path"].startswith("mlp"))


def test_inside_the_norm_the_dropped_upcast_is_placed_at_its_line(cli):
    result = cli("model", SPEC, "--target", "drop_upcast", "--import", PLANTED_MODEL, "--json", "--samples", "2")
    found = json.loads(result.output[result.output.index("{") :])
    assert found["coverage"]["calls"] == found["coverage"]["mapped"] == 13  # every captured call maps onto the op table
    placed = found["localised"]
    assert (placed["module"], placed["verdict"], placed["op"]) == ("norm", "less_accurate", "cast")
    assert placed["line"].startswith("planted_model.py:22") and "x.to(torch.float32)" in placed["line"]


def test_a_planted_bug_goes_from_the_model_to_a_minimised_repro_with_no_hand_work(cli, tmp_path):
    """Found in the model, placed at its op and line, extracted as a case, minimised to at most 2 ops, and its repro
    script fails standalone."""
    corpus = tmp_path / "corpus"
    result = cli("model", SPEC, "--target", "rough_rsqrt", "--import", PLANTED_MODEL, "--samples", "2", "--corpus", corpus)
    assert result.exit_code == 1 and "the op: rsqrt (fp32)" in result.output and "planted_model.py:23" in result.output, result.output
    (case,) = (corpus / "findings").glob("*.json")
    replayed = cli("replay", case, "--import", PLANTED_MODEL)
    assert replayed.exit_code == 1 and "starts at: t4 = rsqrt (fp32)" in replayed.output, replayed.output
    smallest = tmp_path / "min.json"
    assert cli("minimize", case, "--import", PLANTED_MODEL, "-o", smallest).exit_code == 0
    assert len(json.loads(smallest.read_text())["graph"]["nodes"]) <= 2
    assert cli("repro", smallest, "-o", tmp_path / "out", "--import", PLANTED_MODEL).exit_code == 0
    (script,) = (tmp_path / "out").glob("repro_*.py")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "AssertionError" in proc.stderr, proc.stderr[-2000:]


def test_the_same_block_compiled_by_inductor_is_no_finding(cli):
    result = cli("model", SPEC, "--target", "inductor", "--samples", "2")
    assert result.exit_code == 0 and "they part at" not in result.output, result.output


def test_bad_specs_fail_in_one_line(cli, tmp_path):
    # Without transformers an `hf:` spec cannot be looked up; the line then says what to install.
    hf_said = "unknown architecture" if importlib.util.find_spec("transformers") else "need transformers"
    for spec, said in ((f"{tmp_path}/nope.py:f", "no such file"), (f"{PLANTED_MODEL}:nothing", "has no function"), ("hf:nosuch", hf_said)):
        result = cli("model", spec, "--target", "eager")
        assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output, result.output


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers is not installed (pip install 'numfuzz[models]')")
def test_the_seed_report_s_qwen2_is_judged_without_a_download(cli):
    result = cli("model", "hf:qwen2", "--dtype", "bf16", "--target", "inductor", "--samples", "2", "--no-modules", "--json")
    found = json.loads(result.output[result.output.index("{") :])
    assert result.exit_code in (0, 1) and found["outputs"] and found["captured_ops"] > 20, result.output
    assert found["verdict"] in ("equal", "more_accurate", "less_accurate")


def test_a_training_step_with_a_wrong_gradient_is_a_finding_and_eager_is_none(cli):
    """silu's gradient 25% high (`silu_grad_high`): a parameter's gradient is less accurate; eager's own step is no finding."""
    planted = cli("model", SPEC, "--target", "silu_grad_high", "--import", PLANTED_MODEL, "--train", "--samples", "2", "--json")
    assert planted.exit_code == 1, planted.output
    found = json.loads(planted.output[planted.output.index("{") :])
    wrong = [o["label"] for o in found["outputs"] if o["verdict"] == "less_accurate"]
    assert wrong and all(label.startswith("the gradient of ") for label in wrong), found["outputs"]
    assert "the gradient of input 0" in [o["label"] for o in found["outputs"]]  # the block's float input's gradient is judged too
    clean = cli("model", SPEC, "--target", "eager", "--train", "--samples", "2")
    assert clean.exit_code == 0, clean.output


def test_where_inductor_and_eager_part_is_the_op_that_reads_a_fused_value_before_its_rounding():
    """silu(x) * y in bf16: Inductor multiplies silu's fp32 value, eager its bf16 rounding. With every value exposed
    silu's own bits agree; the multiply is where the two part, and the compiled one is nearer float64."""
    import torch
    import torch.nn.functional as F

    from numfuzz.check import as_target
    from numfuzz.model.parting import find_partings

    torch.manual_seed(0)
    x, y = (torch.randn(64, 64) * 3).to(torch.bfloat16), (torch.randn(64, 64) * 3).to(torch.bfloat16)
    from numfuzz.model.region import extract_region

    region = extract_region(lambda x, y: F.silu(x) * y, (x, y), {})
    (parting,) = find_partings(region, as_target("inductor"), "cpu")
    assert (parting.op, parting.verdict) == ("mul", "more_accurate") and parting.differ > 0, parting
    assert "test_model.py" in parting.line


class _GrowingTable(torch.nn.Module):
    """A module that reassigns its buffer in forward, as transformers' relative positions do (Wav2Vec2-Conformer's `pe`)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.linspace(0, 1, 32).reshape(4, 8), persistent=False)
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.table = self.table.to(device=x.device, dtype=x.dtype)  # as Wav2Vec2-Conformer's `extend_pe` does on every call
        return self.lin(x) + self.table[: x.shape[0]]


@pytest.mark.thunder
@pytest.mark.parametrize("train", [False, True])
def test_a_module_reassigning_its_buffer_is_given_to_thunder_as_a_module(train):
    """thunder.jit of a function calling such a module raises an empty AssertionError (lightning-thunder#646's area); of the
    module itself, as a user jits a model, it runs. numfuzz gives Thunder the module, in forward, training step and autocast."""
    from numfuzz.model.check import check_model

    torch.manual_seed(0)
    for autocast in (None, "bf16"):
        result = check_model(
            _GrowingTable(), (torch.randn(4, 8),), "thunder:torchcompile", samples=2, train=train, autocast=autocast, modules=False, partings=False
        )
        assert result.verdict.value not in ("crash_compile", "crash_run", "invalid"), (autocast, result.verdict, result.detail)
