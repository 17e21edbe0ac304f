"""A case or command line asking for an option this torch lacks, or a size mode its target cannot compile: one line, exit 2."""

import pytest
import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import save_case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec

GRAPH = Graph((TensorSpec((4,), "fp32"),), (Node.make("exp", [0]),), (1,))


@pytest.mark.parametrize(
    "run, why",
    [
        (RunSpec("inductor", "cpu", samples=1, compiler_options={"no_such_option": True}), "has no option 'no_such_option'"),
        (RunSpec("thunder:torch", "cpu", samples=1, dynamic="marked", marked=((0, 0),)), "cannot compile dynamic='marked'"),
        (RunSpec("eager", "cpu", samples=1, dynamic="dynamic"), "static sizes with its own options only"),
    ],
)
def test_a_case_whose_compile_mode_cannot_run_here_is_one_line_and_exit_2(cli, tmp_path, run, why):
    if run.target.startswith("thunder"):
        pytest.importorskip("thunder")
    path = save_case(Case.from_tensors(GRAPH, [[torch.ones(4)]], run), tmp_path)
    for command in ("replay", "repro", "minimize"):
        result = cli(command, path)
        assert result.exit_code == 2 and why in result.output, (command, result.output)
        assert len(result.output.strip().splitlines()) == 1


def test_an_option_this_torch_lacks_on_the_command_line_is_one_line_and_exit_2(cli, tmp_path):
    result = cli("fuzz", "--target", "inductor:no_such_option=1", "--graphs", "1", "--corpus", tmp_path)
    assert result.exit_code == 2 and "has no option 'no_such_option'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_shares_that_add_up_to_more_than_one_are_one_line_and_exit_2(cli, tmp_path):
    result = cli("fuzz", "--target", "eager", "--graphs", "1", "--dynamic-share", "0.8", "--marked-share", "0.5", "--corpus", tmp_path)
    assert result.exit_code == 2 and "add up to more than 1" in result.output
