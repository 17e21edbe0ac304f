"""A case file whose layout or indices are malformed: `replay` says so in one line and exits 2, before running anything."""

from __future__ import annotations

import json

import pytest
import torch

from numfuzz.corpus.case import Case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.layout import Layout


def _case_file(tmp_path, edit) -> str:
    inputs = (TensorSpec((3, 4), "fp32", Layout.make(2, perm=[1, 0])), TensorSpec((3,), "i64"))
    graph = Graph(inputs, (Node.make("nll_loss", [0, 1], reduction="mean", ignore_index=-100),), (2,))
    data = Case.from_tensors(graph, [[torch.randn(3, 4), torch.tensor([3, 0, 1])]], "eager").to_json()
    edit(data)
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data))
    return str(path)


def _set_layout(layout):
    def edit(data):
        data["graph"]["inputs"][0]["layout"] = layout

    return edit


def _bits(values: list[int]) -> str:
    from numfuzz.program.values import encode

    return encode(torch.tensor(values, dtype=torch.int64))


@pytest.mark.parametrize(
    "edit, message",
    [
        (_set_layout({"perm": [1, 1]}), "bad graph: bad layout of an input [3, 4]: layout perm [1, 1] is not a permutation of 2 dims"),
        (_set_layout({"step": [1, 99]}), "layout step [1, 99] needs 2 steps, each 1..64"),
        (_set_layout({"expand": [0], "perm": [1, 0]}), "sample 0: input x0's values differ along dim [0]"),
        (_set_layout({"strides": [1, 3]}), "unknown fields ['strides']"),
        (_set_layout("transposed"), "layout is not an object"),
        (lambda data: data["samples"][0].__setitem__(1, _bits([7, 0, 1])), "input x1 holds index 7, outside [0, 4)"),
        (lambda data: data["graph"]["inputs"][1].__setitem__("dtype", "fp32"), "takes i64 indices as argument 1, got fp32"),
    ],
)
def test_replay_of_a_malformed_case_says_why_in_one_line_and_exits_2(cli, tmp_path, edit, message):
    result = cli("replay", _case_file(tmp_path, edit), "--target", "eager")
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_replay_of_the_same_case_unedited_runs(cli, tmp_path):
    result = cli("replay", _case_file(tmp_path, lambda data: None), "--target", "eager")
    assert result.exit_code == 0, result.output
    assert "verdict: equal" in result.output


def test_a_second_size_whose_indices_are_out_of_range_is_one_line_and_exit_2(cli, tmp_path):
    def at_a_second_size(data):
        data["run"]["dynamic"] = "dynamic"
        data["graph"]["inputs"][0].pop("layout")  # a second size's inputs are contiguous
        classes = _bits([9, 0, 1, 2])  # index 9 of 5 classes
        data["second_size"] = {"shapes": [[4, 5], [4]], "samples": [[_encode(torch.randn(4, 5)), classes]]}

    result = cli("replay", _case_file(tmp_path, at_a_second_size))
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "second_size: sample 0: input x1 holds index 9, outside [0, 5)" in result.output


def test_a_case_whose_recorded_import_is_gone_is_one_line_and_exit_2_until_given_anew(cli, tmp_path):
    plugin = tmp_path / "my_target.py"
    plugin.write_text("from numfuzz.targets import register\nfrom numfuzz.targets.eager import Eager\nregister('mine', lambda arg: Eager(), 'eager again')\n")
    path = _case_file(tmp_path, lambda data: data["run"].__setitem__("imports", [str(tmp_path / "gone" / "my_target.py")]))
    result = cli("replay", path, "--target", "eager")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert "run.imports names" in result.output and "gone/my_target.py" in result.output and "Traceback" not in result.output
    again = cli("replay", path, "--target", "eager", "--import", str(plugin))
    assert again.exit_code == 0, again.output


def _encode(t: torch.Tensor) -> str:
    from numfuzz.program.values import encode

    return encode(t)


def test_numfuzz_failing_while_judging_a_case_is_one_line_and_exit_3(cli, tmp_path, monkeypatch):
    import numfuzz.runner.case_runner

    def fails(*args, **kwargs):
        raise RuntimeError("element 2 of tensors does not require grad and does not have a grad_fn\nmore detail")

    monkeypatch.setattr(numfuzz.runner.case_runner, "run_case", fails)
    result = cli("replay", _case_file(tmp_path, lambda data: None), "--target", "eager")
    assert result.exit_code == 3, result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert "internal error judging" in result.output and "RuntimeError: element 2 of tensors does not require grad" in result.output
