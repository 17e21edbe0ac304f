"""Signatures say how a finding compiled and where it shows; old signatures keep their keys."""

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
    options = signature_of("inductor", outcome, RunSpec("inductor", dynamic="dynamic", config={"max_autotune": True}))
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
