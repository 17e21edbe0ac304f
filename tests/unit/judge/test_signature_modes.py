"""Signatures say how a finding compiled and where it shows; old signatures keep their keys."""

import torch

from numfuzz.corpus.group_key import GroupKey
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Analysis
from numfuzz.judge.signature import Signature, same_finding, signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec

GRAPH = Graph((TensorSpec((4,), "fp32"),), (Node.make("expm1", [0]),), (1,))


def test_an_old_signature_reads_and_groups_as_before():
    old = {"target": "inductor", "symptom": "less_accurate", "ops": ["expm1"], "dtype": "fp32", "cause": "cancellation"}
    signature = Signature.from_json(old)
    assert signature.to_json() == old and signature.group_key() == ("inductor", "cancellation", ("expm1",))
    assert signature.where == "inductor" and signature.text() == "inductor | less_accurate | expm1 | fp32 | cancellation"


def test_the_compile_mode_and_the_second_size_are_their_own_groups():
    outcome = Outcome(Verdict.LESS_ACCURATE, analysis=Analysis(0, "cancellation", op="expm1", dtype="fp32"))
    plain = signature_of("inductor", outcome, RunSpec("inductor"))
    options = signature_of("inductor", outcome, RunSpec("inductor", dynamic="dynamic", compiler_options={"max_autotune": True}))
    outcome.at = "second_size"
    second = signature_of("inductor", outcome, RunSpec("inductor", dynamic="dynamic"))
    assert len({plain.group_key(), options.group_key(), second.group_key()}) == 3
    assert options.where == "inductor [dynamic max_autotune=1]" and GroupKey.of(second, None, None, [], {}).title().startswith(
        "inductor [dynamic, at the second size] |"
    )
    assert Signature.from_json(second.to_json()) == second


def test_a_difference_at_the_first_size_is_not_the_second_sizes_finding():
    signature = Signature("inductor", "less_accurate", ("expm1",), "fp32", "cancellation", at="second_size")
    first = Outcome(Verdict.LESS_ACCURATE, analysis=Analysis(0, op="expm1"))
    assert not same_finding(signature, GRAPH, first)


def test_a_crash_is_one_group_whatever_mode_it_was_drawn_in():
    crash = Outcome(Verdict.CRASH_COMPILE, "Unsupported: Unexpected type in sourceless builder torch.dtype")
    drawn = [RunSpec("thunder:torchcompile"), RunSpec("thunder:torchcompile", threads=2), RunSpec("thunder:torchcompile", dynamic="dynamic")]
    keys = {signature_of("thunder:torchcompile", crash, run).group_key() for run in drawn}
    assert len(keys) == 1
    crash.at = "second_size"  # where it shows still parts it
    assert signature_of("thunder:torchcompile", crash, drawn[2]).group_key() not in keys


def test_a_mismatch_group_names_each_op_and_what_differs():
    from numfuzz.judge.output_words import mismatch_text

    graph = Graph((TensorSpec((4, 3), "fp32"), TensorSpec((4,), "i64")), (Node.make("nll_loss", [0, 1], reduction="mean", ignore_index=-100),), (2,))
    text = mismatch_text(graph, (torch.zeros((), dtype=torch.float32),), (torch.zeros((), dtype=torch.bfloat16),))
    assert text == "nll_loss: bf16 where eager gives fp32"
    assert mismatch_text(graph, (torch.zeros(3),), (torch.zeros(2),)) == "nll_loss: shape (2,) where eager gives (3,)"
    assert mismatch_text(graph, (torch.zeros(3),), ()) == "0 values where eager gives 1"
    signature = signature_of("thunder:torchcompile", Outcome(Verdict.MISMATCH, text), RunSpec("thunder:torchcompile"), graph)
    assert GroupKey.of(signature, graph, None, [], {}).title() == "thunder:torchcompile | mismatch | nll_loss: bf16 where eager gives fp32"
