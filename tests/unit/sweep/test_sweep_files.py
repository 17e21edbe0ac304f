"""A model sweep's grid, results file and comparison: cells named alike in every interpreter, results kept whole and
resumed, and a cell that became less accurate between two sweeps named."""

from __future__ import annotations

import json

import pytest

from numfuzz.sweep.compare import compare
from numfuzz.sweep.grid import GridError, build_grid
from numfuzz.sweep.results import RESULTS, VERSIONS, ResultsError, append_result, load_results


def test_the_grid_crosses_every_axis_and_vit_has_one_size():
    grid = build_grid(["hf:llama", "hf:vit"], ["inductor", "thunderfx:torchcompile"], ["bf16", "fp32-autocast-fp16"], ["forward", "train"], (32, 16))
    llama = [c for c in grid if c.model == "hf:llama"]
    assert len(llama) == 2 * 2 * 2 * 2 and {c.positions for c in llama} == {32, 16}
    assert {c.positions for c in grid if c.model == "hf:vit"} == {0} and len(grid) == 16 + 8
    cell = next(c for c in grid if c.precision == "fp32-autocast-fp16")
    assert (cell.dtype, cell.autocast) == ("fp32", "fp16") and len({c.key for c in grid}) == len(grid)


@pytest.mark.parametrize(
    ("models", "precisions", "said"),
    [(["hf:nosuch"], ["bf16"], "unknown architecture"), (["hf:llama"], ["fp8"], "unknown precision"), (["model.py"], ["bf16"], "FILE.py:FUNCTION")],
)
def test_a_grid_of_nothing_is_one_clear_error(models, precisions, said):
    with pytest.raises(GridError, match=said):
        build_grid(models, ["inductor"], precisions, ["forward"], (32,))


def test_results_are_appended_whole_and_a_rerun_knows_the_cells_done(tmp_path):
    grid = build_grid(["hf:gpt2"], ["inductor"], ["bf16"], ["forward", "train"], (8,))
    append_result(tmp_path, {**grid[0].to_json(), "key": grid[0].key, "verdict": "equal", "finding": False})
    append_result(tmp_path, {**grid[1].to_json(), "key": grid[1].key, "verdict": "timeout", "finding": True})
    done = load_results(tmp_path)
    assert [c.key in done for c in grid] == [True, True] and done[grid[1].key]["verdict"] == "timeout"
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind
    (tmp_path / RESULTS).write_text((tmp_path / RESULTS).read_text() + "{torn\n")
    with pytest.raises(ResultsError, match=f"{RESULTS}:3"):
        load_results(tmp_path)


def _sweep(folder, torch_version, cells):
    folder.mkdir()
    (folder / VERSIONS).write_text(json.dumps({"torch": torch_version, "thunder": None}))
    for key, verdict, finding, bits in cells:
        append_result(folder, {"key": key, "verdict": verdict, "finding": finding, "bits_lost": bits, "known": ""})


def test_a_comparison_names_the_cells_that_became_less_accurate_and_only_those(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _sweep(a, "2.11", [("llama|inductor|bf16|train|32", "equal", False, 0.0), ("gpt2|inductor|bf16|forward|32", "less_accurate", True, 3.0),
                       ("t5|inductor|fp16|forward|32", "less_accurate", True, 5.0), ("bert|inductor|bf16|forward|32", "less_accurate", True, 2.0),
                       ("vit|inductor|bf16|forward|-", "equal", False, 0.0)])  # fmt: skip
    _sweep(b, "2.15", [("llama|inductor|bf16|train|32", "less_accurate", True, 4.0), ("gpt2|inductor|bf16|forward|32", "less_accurate", True, 6.5),
                       ("t5|inductor|fp16|forward|32", "equal", False, 0.0), ("bert|inductor|bf16|forward|32", "less_accurate", True, 2.5),
                       ("qwen2|inductor|bf16|forward|32", "equal", False, 0.0)])  # fmt: skip
    found = compare(a, b)
    assert sorted(c.key for c in found.worse) == ["gpt2|inductor|bf16|forward|32", "llama|inductor|bf16|train|32"]
    assert [c.key for c in found.changes if not c.worse] == ["t5|inductor|fp16|forward|32"]  # bert's half a bit is noise
    assert (found.both, found.only_a, found.only_b) == (4, 1, 1)
    text = found.text()
    assert "A: torch 2.11" in text and "B: torch 2.15" in text and "llama|inductor|bf16|train|32: equal -> less_accurate (4 bits)" in text
    assert not compare(a, a).changes
    with pytest.raises(ResultsError, match="no sweep results"):
        compare(a, tmp_path)


def test_a_user_function_is_swept_at_each_length_only_where_it_takes_positions():
    from helpers import ROOT

    with_positions, one_size = f"{ROOT}/examples/planted_sweep.py:rms_block", f"{ROOT}/examples/planted_model.py:decoder_block"
    grid = build_grid([with_positions, one_size], ["eager"], ["bf16"], ["forward"], (32, 16))
    assert [(c.name, c.positions) for c in grid] == [("rms_block", 32), ("rms_block", 16), ("decoder_block", 0)]
    with pytest.raises(GridError, match="has no function"):
        build_grid([f"{ROOT}/examples/planted_sweep.py:nothing"], ["eager"], ["bf16"], ["forward"], (32,))


def test_a_model_not_worse_by_the_verdict_has_its_modules_judged_where_its_largest_error_exceeds_eager_s():
    """Llama with its RMSNorm upcast dropped: the logits' verdict counts no bit lost (near-zero elements), yet the largest
    error is 2.3 times eager's; its modules alone must say where they part."""
    from types import SimpleNamespace

    from numfuzz.judge.oracle import OutputErrors
    from numfuzz.sweep.cell import suspect

    def output(eager_abs: float, target_abs: float, verdict: str = "equal") -> OutputErrors:
        target_ulp = 7e4 if target_abs > eager_abs else 5e4
        return OutputErrors(0, "bf16", 256, 6e4, 1.0, target_ulp, 1.0, eager_abs, target_abs, 0.1, 0.1, 3, 3, 0, 0, verdict=verdict)

    assert suspect(SimpleNamespace(is_finding=False, outputs=[output(0.0024, 0.0055)]))
    assert not suspect(SimpleNamespace(is_finding=False, outputs=[output(0.0055, 0.0024)]))
    assert not suspect(SimpleNamespace(is_finding=False, outputs=[output(0.0024, 0.0055, "more_accurate")]))
    assert suspect(SimpleNamespace(is_finding=True, outputs=[]))
    # a largest error a little above eager's, or a larger ULP error at a near-zero element, is how any two roundings differ
    assert not suspect(SimpleNamespace(is_finding=False, outputs=[output(0.0024, 0.0030)]))
    near_zero = OutputErrors(0, "fp16", 256, 2911.0, 1.0, 3087.0, 1.0, 3.8e-4, 2.9e-4, 0.1, 0.1, 3, 3, 0, 0, verdict="equal")
    assert not suspect(SimpleNamespace(is_finding=False, outputs=[near_zero]))


def test_a_comparison_names_the_cells_that_started_or_stopped_failing_and_those_that_fail_otherwise(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    crash = "RuntimeError: shape '[1, 16, 4]' is invalid for input of size 1024"
    _sweep(a, "2.11", [("qwen3|inductor|bf16|train|16", "equal", False, 0.0), ("phi|inductor|bf16|train|16", "crash_compile", True, None),
                       ("opt|thunder|bf16|train|16", "crash_compile", True, None), ("t5|inductor|bf16|train|16", "invalid", False, None)])  # fmt: skip
    _sweep(b, "2.15", [("qwen3|inductor|bf16|train|16", "crash_run", True, None), ("phi|inductor|bf16|train|16", "more_accurate", False, 0.0),
                       ("opt|thunder|bf16|train|16", "crash_compile", True, None), ("t5|inductor|bf16|train|16", "equal", False, 0.0)])  # fmt: skip
    for folder, detail in ((a, "AssertionError: x"), (b, crash)):  # the same crash verdict, another message
        append_result(folder, {"key": "opt|thunder|bf16|train|16", "verdict": "crash_compile", "finding": True, "detail": detail, "known": ""})
    found = compare(a, b)
    kinds = {c.key: c.kind for c in found.changes}
    assert kinds == {"qwen3|inductor|bf16|train|16": "started failing", "phi|inductor|bf16|train|16": "stopped failing",
                     "opt|thunder|bf16|train|16": "failed otherwise", "t5|inductor|bf16|train|16": "invalid on one side"}  # fmt: skip
    assert [c.key for c in found.worse] == ["qwen3|inductor|bf16|train|16"]
    assert "shape '[#]' is invalid for input of size #" in found.text()  # a crash said by its fingerprint
