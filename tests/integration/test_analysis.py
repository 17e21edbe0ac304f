"""The analysis of a finding: where the difference starts, its cause as a tested claim, or that it is only amplified."""

from __future__ import annotations

import math

import pytest
import rounding_target  # noqa: F401  (registers the `rounded` target)
import torch
from planted_findings import PLANTED, found, minimized, planted_target

from numfuzz.corpus.case import Case
from numfuzz.judge.execute import evaluate
from numfuzz.judge.localize import locate_by_cutting
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

CAUSES = {
    "bug_expm1": "cancellation",  # exp(x) - 1
    "bug_sum": "low_precision",  # accumulates in bf16/fp16
    "bug_silu": "low_precision",  # one extra rounding
    "bug_softplus": "nonfinite_intermediate",  # log(1 + exp(x)) overflows
    "bug_cast": "cast_dropped",  # x.to(bf16).float() returns x
}


@pytest.mark.thunder
@pytest.mark.parametrize("executor", sorted(PLANTED))
def test_each_planted_bug_is_found_at_its_op_with_its_cause(executor):
    op, _ = PLANTED[executor]
    outcome = run_case(found(executor), planted_target(executor), "cpu")
    assert outcome.verdict.is_finding
    analysis = outcome.analysis
    assert analysis.op == op and analysis.cause == CAUSES[executor], analysis
    assert analysis.evidence and all(isinstance(line, str) for line in analysis.evidence)


@pytest.mark.thunder
@pytest.mark.parametrize("executor", sorted(PLANTED))
def test_the_minimised_case_keeps_the_cause(executor):
    result = minimized(executor)
    assert result.signature.cause == CAUSES[executor]
    assert result.case.result["analysis"]["cause"] == CAUSES[executor]


def _case(graph: Graph, values: list[torch.Tensor], target: str) -> Case:
    return Case.from_tensors(graph, [values], target)


def test_the_culprit_is_where_the_error_starts_not_the_op_that_shows_it(planted_bugs):
    """reciprocal(expm1(x)) with expm1 as exp(x) - 1: the cancellation makes 0, reciprocal makes inf."""
    x = torch.tensor([1e-9, 3e-10, 2e-9, 5e-10], dtype=torch.float32)
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("expm1", [0]), Node.make("reciprocal", [1]), Node.make("relu", [2])), (3,))
    outcome = run_case(_case(graph, [x], "thunder:bug_expm1"), resolve("thunder:bug_expm1"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE
    analysis = outcome.analysis
    assert analysis.culprit.op == "expm1" and analysis.culprit.located == "probe"
    assert analysis.cause == "cancellation", analysis


LOGS = (Node.make("log_softmax", [0], dim=0), Node.make("abs", [1]), Node.make("log", [2]), Node.make("cast", [3], dtype="fp16"), Node.make("log", [4]))


def test_a_more_accurate_op_amplified_downstream_is_not_a_finding():
    """log(log(abs(log_softmax(x))).to(fp16)): the target's log_softmax is -1.0, closer to float64's -1.0016
    than eager's -1.0078; log(1.0) = 0 and log(0) = -inf. Non-finite where eager is finite, yet benign."""
    graph = Graph((TensorSpec((3,), "bf16"),), LOGS, (5,))
    x = torch.tensor([0.001953125, -0.375, -0.01953125], dtype=torch.bfloat16)
    outcome = run_case(_case(graph, [x], "rounded"), resolve("rounded"), "cpu")
    assert outcome.outputs[0].target_nonfinite == 1  # the output alone would say nonfinite
    assert outcome.verdict is Verdict.AMPLIFIED and not outcome.verdict.is_finding


def test_a_dropped_cast_is_one_group_whatever_consumes_it(planted_bugs):
    x = torch.linspace(1.001, 1.9, 16, dtype=torch.float32)
    keys = set()
    for consumer in ("sigmoid", "exp", "neg"):
        graph = Graph(
            (TensorSpec((16,), "fp32"),), (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32"), Node.make(consumer, [2])), (3,)
        )
        outcome = run_case(_case(graph, [x], "thunder:bug_cast"), resolve("thunder:bug_cast"), "cpu")
        assert outcome.analysis.cause == "cast_dropped", (consumer, outcome.analysis)
        from numfuzz.judge.signature import signature_of

        keys.add(signature_of("thunder:bug_cast", outcome).group_key())
    assert len(keys) == 1


def test_cutting_the_cone_finds_the_op_where_the_error_starts(planted_bugs):
    """Cutting the cone from the front (used where exposing values changes the fusion) ends at expm1:
    fed eager's expm1, relu is exact; the program with expm1 shows the finding."""
    x = torch.full((16,), 0.015625, dtype=torch.float32)
    graph = Graph((TensorSpec((16,), "fp32"),), (Node.make("sigmoid", [0]), Node.make("expm1", [0]), Node.make("relu", [2])), (1, 3))
    target = resolve("thunder:bug_expm1")
    outcome = evaluate(graph, [[x]], target, "cpu")
    assert outcome.verdict is Verdict.LESS_ACCURATE
    culprit, suffix = locate_by_cutting(graph, [[x]], target, "cpu", outcome, 1)
    assert culprit.op == "expm1" and culprit.located == "cutting"
    assert suffix.graph.outputs[suffix.output] == suffix.graph.outputs[-1]


@pytest.mark.parametrize("spec", ["inductor", pytest.param("thunder:torchcompile", marks=pytest.mark.thunder)])
def test_the_compilers_addcmul_on_cancelling_inputs_is_within_rounding(spec):
    """The README quick start's old "new" finding: the compiled addcmul rounds b*c before adding a, where eager
    rounds once; on a close to -b*c that is 10^7 ULP at the op, yet the exact addcmul of inputs 0.19 ULP away."""
    gen = torch.Generator().manual_seed(0)
    b, c = torch.rand(64, generator=gen) + 0.5, torch.rand(64, generator=gen) + 0.5
    a = -(b.double() * c.double() * (1 + torch.randn(64, generator=gen, dtype=torch.float64) * 2.0**-20)).float()
    graph = Graph(tuple(TensorSpec((64,), "fp32") for _ in range(3)), (Node.make("addcmul", [0, 1, 2], value=1.0),), (3,))
    target = resolve(spec)
    ok, why = target.available()
    if not ok:
        pytest.skip(why)
    outcome = run_case(_case(graph, [a, b, c], spec), target, "cpu")
    if outcome.outputs[0].verdict != "less_accurate":
        pytest.skip(f"{spec} rounds addcmul once here ({outcome.outputs[0].verdict}): nothing to judge")
    assert outcome.verdict is Verdict.WITHIN_ROUNDING, outcome.analysis
    assert outcome.analysis.rounding_error.target.max_needed_ulp < 1.0


def test_autocasts_own_cast_dropped_is_cast_elision():
    """Causal attention in a bf16 autocast region, on fp32 inputs whose value head differs from the key's (so the math
    path): Inductor fuses autocast's cast to bf16 with the math path's cast back, so q, k, v are never rounded.
    Against the program as autocast writes it that is hundreds of ULP; with autocast's casts taken as no-ops, half an
    ULP: a dropped cast, the known cast elision, not a new finding."""
    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.judge.signature import signature_of
    from numfuzz.program.autocast import with_region

    specs = (TensorSpec((2, 4, 16, 8), "fp32"), TensorSpec((2, 4, 16, 8), "fp32"), TensorSpec((2, 4, 16, 4), "fp32"))
    graph = with_region(Graph(specs, (Node.make("sdpa", [0, 1, 2], is_causal=True),), (3,)), [0], "bf16")
    gen = torch.Generator().manual_seed(0)
    case = Case.from_tensors(graph, [[torch.randn(s.shape, generator=gen) for s in specs] for _ in range(2)], "inductor")
    outcome = run_case(case, resolve("inductor"), "cpu")
    assert outcome.verdict is Verdict.LESS_ACCURATE and outcome.analysis.cause == "cast_dropped", outcome.analysis
    assert "autocast casts taken as a no-op" in outcome.analysis.evidence[0]
    signature = signature_of("inductor", outcome, case.run, graph)
    assert match_known(load_known(), signature, {"device": "cpu", "torch": torch.__version__}).id == "inductor-cast-elision"


def test_a_dropped_cast_is_named_whatever_amplifies_it_after():
    """The quick start's `x1 * x0.to(fp16)` then `tan`: Inductor drops the fp32 input's cast, the product keeps its fp32
    bits, and tan near its pole makes that inf. At the output no cast explains an inf; at the mul, the located culprit,
    the probed value is the product of the uncast input, one rounding away: the dropped cast, not `low_precision`."""
    import math

    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.judge.signature import signature_of
    from numfuzz.run_spec import RunSpec

    graph = Graph(
        (TensorSpec((64,), "fp32"), TensorSpec((64,), "fp16")), (Node.make("cast", [0], dtype="fp16"), Node.make("mul", [1, 2]), Node.make("tan", [3])), (4,)
    )
    x0 = (math.pi / 3) * (1 + 1e-5 * torch.randn(64, generator=torch.Generator().manual_seed(0)))
    case = Case.from_tensors(graph, [[x0, torch.full((64,), 1.5, dtype=torch.float16)]], RunSpec("inductor", "cpu", samples=1))
    outcome = run_case(case, resolve("inductor"))
    assert outcome.verdict is Verdict.NONFINITE
    facts = outcome.analysis
    assert facts.culprit is not None and facts.culprit.op == "mul", facts
    assert facts.cause == "cast_dropped" and facts.op == "cast" and facts.dtype == "fp16", facts.evidence
    signature = signature_of("inductor", outcome, case.run, graph)
    issue = match_known(load_known(), signature, {"torch": torch.__version__, "device": "cpu"})
    assert issue is not None and issue.id == "inductor-cast-elision"


def test_a_cast_dropped_in_the_backward_is_cast_elision():
    """A Thunder-main campaign's `leaky_relu(cumsum(x16, dim=-1, dtype=bf16))` at x = 0 with gradients: eager's backward
    computes 0.01 * g in bf16 and casts it to fp16; Inductor's fused backward multiplies in fp32 and rounds once to fp16.
    No op's backward alone shows it (each is given eager's rounded gradient); against the program with the cumsum's cast
    taken as a no-op the compiled gradient is within half an ULP: the known cast elision, in the backward."""
    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.judge.signature import signature_of
    from numfuzz.run_spec import RunSpec

    graph = Graph(
        (TensorSpec((1, 1), "fp16"),), (Node.make("cumsum_dtype", [0], dim=-1, dtype="bf16"), Node.make("leaky_relu", [1], negative_slope=0.01)), (2,)
    )
    upstream = [0.0986328125, -0.73828125, 1.109375, 1.140625, 0.080078125, 0.32421875, 0.98046875, -0.267578125]
    samples = [[torch.zeros(1, 1, dtype=torch.float16)] for _ in upstream]
    grads = [[torch.tensor([[g]], dtype=torch.bfloat16)] for g in upstream]
    case = Case.from_tensors(graph, samples, RunSpec("inductor", "cpu", samples=len(samples), grad=True), grads=grads)
    outcome = run_case(case, resolve("inductor"))
    if not outcome.verdict.is_finding:
        pytest.skip(f"Inductor keeps the bf16 rounding of this gradient here ({outcome.verdict.value})")
    facts = outcome.analysis
    assert facts.cause == "cast_dropped" and facts.gradient_of == 0, facts
    assert "cumsum_dtype" in facts.evidence[0] and "gradient of x0" in facts.evidence[0]
    signature = signature_of("inductor", outcome, case.run, graph)
    assert match_known(load_known(), signature, {"torch": torch.__version__, "device": "cpu"}).id == "inductor-cast-elision"


def _causal_sdpa_with_nan_query_rows() -> tuple[Graph, list[list[torch.Tensor]], list[list[torch.Tensor]]]:
    """A Thunder-main campaign's case: causal sdpa of zero keys and values, its query NaN in rows 1 to 22 here and there."""
    query = torch.zeros(32, 2, dtype=torch.bfloat16)
    query[[1, 3, 4, 8, 13, 21, 22], 0] = math.nan
    specs = (TensorSpec((32, 2), "bf16"), TensorSpec((32, 1), "bf16"), TensorSpec((32, 2), "bf16"))
    graph = Graph(specs, (Node.make("sdpa", [2, 0, 1], is_causal=True),), (3,))
    samples = [[torch.zeros(32, 2, dtype=torch.bfloat16), torch.zeros(32, 1, dtype=torch.bfloat16), query]]
    return graph, samples, [[torch.ones(32, 1, dtype=torch.bfloat16)]]


@pytest.mark.thunder
def test_a_gradient_nan_that_reaches_only_through_a_masked_zero_is_eagers_own():
    """Eager's causal-attention key gradient sums over every query row, the masked ones with a weight of 0, so a NaN query
    row makes it NaN at keys 23 to 31, which no NaN row attends to; Thunder computes the masked terms as 0. With the NaNs
    replaced by 0 or by 1 the float64 gradient there is 0, Thunder's value: eager_unstable, not a finding."""
    from numfuzz.run_spec import RunSpec

    graph, samples, upstream = _causal_sdpa_with_nan_query_rows()
    case = Case.from_tensors(graph, samples, RunSpec("thunder:torchcompile", "cpu", samples=1, grad=True), grads=upstream)
    outcome = run_case(case, resolve("thunder:torchcompile"))
    if outcome.oracle is not Verdict.NONFINITE_CLASS:
        pytest.skip(f"this Thunder keeps eager's NaNs ({outcome.oracle.value})")
    assert outcome.verdict is Verdict.EAGER_UNSTABLE, outcome.analysis
    assert "do not depend on the non-finite inputs" in outcome.analysis.nan_unreached


def test_a_gradient_nan_dropped_where_it_reaches_stays_a_finding():
    """A planted target that zeroes every NaN in an input's gradient: x1's gradient of x0 * x1 is x0 * g, NaN where x0 is;
    with x0's NaN replaced by 0 or by 1 the gradient there differs, so the NaN reaches it: a finding."""
    import nan_grad_target  # noqa: F401  (registers the `nan_grad_zeroed` target)

    from numfuzz.run_spec import RunSpec

    specs = (TensorSpec((8,), "fp32"), TensorSpec((8,), "fp32"))
    graph = Graph(specs, (Node.make("mul", [0, 1]),), (2,))
    x0 = torch.arange(8, dtype=torch.float32)
    x0[[2, 5]] = math.nan
    case = Case.from_tensors(graph, [[x0, torch.ones(8)]], RunSpec("nan_grad_zeroed", "cpu", samples=1, grad=True), grads=[[torch.ones(8)]])
    outcome = run_case(case, resolve("nan_grad_zeroed"))
    assert outcome.oracle is Verdict.NONFINITE_CLASS and outcome.verdict is Verdict.NONFINITE_CLASS, outcome.analysis
    assert outcome.analysis.nan_unreached is None
