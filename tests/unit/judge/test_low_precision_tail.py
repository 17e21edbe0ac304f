"""One more rounding in fp16, where some intermediates fall below fp16's normal range: still `low_precision`.

The target computes silu with its sigmoid rounded to the input dtype first (one extra rounding). For most inputs that is
at most an ULP and a half off; where the gate of a large negative input is subnormal in fp16 it loses relative precision
and the result is several ULP off. A few such elements do not make it a kernel's few ULP, and the minimiser, shrinking the
values, keeps the elements that show the rounding rather than the one the subnormal gate spoils.
"""

from __future__ import annotations

import gate_rounded_target  # noqa: F401  (registers the `gate_rounded` target)
import torch

from numfuzz.corpus.case import Case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.reduce.minimize import minimize_case
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

GRAPH = Graph((TensorSpec((64,), "fp16"),), (Node.make("silu", [0]),), (1,))


def _values(seed: int) -> torch.Tensor:
    values = (torch.randn(64, generator=torch.Generator().manual_seed(seed)) * 2).to(torch.float16)
    values[:2] = torch.tensor([-18.0, -16.0])  # gates of 1.5e-8 and 1.1e-7: subnormal in fp16
    return values


def _case() -> Case:
    return Case.from_tensors(GRAPH, [[_values(seed)] for seed in range(4)], "gate_rounded")


def test_a_rounded_gate_with_subnormal_tails_is_one_more_rounding():
    outcome = run_case(_case(), resolve("gate_rounded"), "cpu")
    assert outcome.verdict.is_finding
    assert outcome.analysis.cause == "low_precision", outcome.analysis
    assert "past 1.5 ULP, as a subnormal intermediate gives" in outcome.analysis.evidence[0]


def test_the_subnormal_elements_alone_are_not_one_more_rounding():
    """Only the two spoiled elements off by more than half an ULP: nothing shows the rounding itself."""
    values = torch.zeros(64, dtype=torch.float16)
    values[:2] = torch.tensor([-18.0, -16.0])
    outcome = run_case(Case.from_tensors(GRAPH, [[values]], "gate_rounded"), resolve("gate_rounded"), "cpu")
    assert outcome.verdict.is_finding and outcome.analysis.cause != "low_precision", outcome.analysis


def test_the_minimiser_keeps_the_cause():
    result = minimize_case(_case(), resolve("gate_rounded"), "cpu")
    assert result.reproduced and result.signature.cause == "low_precision"
    assert result.case.result["analysis"]["cause"] == "low_precision"


def test_an_op_reading_its_narrow_input_before_its_rounding_is_not_one_more_rounding():
    """sin's fp32 value cast to fp16, then selu: a target that reads an unrounded fp32 value within half an ULP of the
    fp16 input (cast elision) is up to 1.28 ULP off with a quarter of its elements past half an ULP, eager never; that is
    one rounding fewer, not one more (a Thunder-main campaign's selu was `low_precision`, a finding whatever the bound),
    and within selu's bound for unrounded inputs. Without `domain_edge.explained_by_unrounded_inputs` it is
    `less_accurate`, cause `low_precision`."""
    import cast_elided_target  # noqa: F401  (registers the `cast_elided` target)

    graph = Graph((TensorSpec((512,), "fp32"),), (Node.make("sin", [0]), Node.make("cast", [1], dtype="fp16"), Node.make("selu", [2])), (3,))
    samples = [[-0.02 - 0.11 * torch.rand(512, generator=torch.Generator().manual_seed(seed))] for seed in range(2)]
    outcome = run_case(Case.from_tensors(graph, samples, "cast_elided"), resolve("cast_elided"), "cpu")
    assert outcome.analysis.cause != "low_precision", outcome.analysis
    assert outcome.verdict.value == "within_rounding", outcome.verdict
