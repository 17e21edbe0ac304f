"""A dropped cast where eager's value is exact: `x1 * x0.to(bf16)` with x0 = 1 + 2**-8 and x1 = 1.5 is 1.5 exactly in
eager, and a compiler that keeps x0 in fp32 stores 1.5078125, one rounding of the uncast product. Against the program
without the cast the target is within the output's rounding; eager, exact, is 0 ULP off: that is still a dropped cast.
So is a bf16 constant whose fill value (1/3) the compiler keeps in fp32."""

from __future__ import annotations

import torch

from numfuzz.judge.cast_dropped import cast_dropped
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome, Runs
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

CAST = Graph((TensorSpec((32,), "fp32"), TensorSpec((32,), "bf16")), (Node.make("cast", [0], dtype="bf16"), Node.make("mul", [1, 2])), (3,))
FILL = Graph((TensorSpec((32,), "bf16"), TensorSpec((32,), "bf16")), (Node.make("full_like", [1], value=1 / 3, dtype="bf16"), Node.make("add", [2, 0])), (3,))


def _evidence(graph: Graph, sample: list[torch.Tensor], eager: torch.Tensor, target: torch.Tensor) -> Evidence:
    runs = Runs(eager=[(eager,)], reference=[(eager.double(),)], target=[(target,)])
    return Evidence(graph, [sample], resolve("eager"), "cpu", Outcome(Verdict.LESS_ACCURATE, runs=runs), 0)


def test_a_dropped_cast_is_found_where_eager_is_exact():
    x0, x1 = torch.full((32,), 1 + 2**-8), torch.full((32,), 1.5, dtype=torch.bfloat16)
    kept = (x0 * x1.float()).bfloat16()  # 1.5078125: the product of the uncast value, rounded once
    found = cast_dropped(_evidence(CAST, [x0, x1], (x0.bfloat16() * x1), kept))
    assert found is not None and found.cause == "cast_dropped" and found.op == "cast" and found.dtype == "bf16"
    assert cast_dropped(_evidence(CAST, [x0, x1], x0.bfloat16() * x1, kept + 0.25)) is None  # further off than the cast explains


def test_a_constant_kept_wider_than_its_dtype_is_a_dropped_cast():
    x0 = torch.full((32,), -0.5, dtype=torch.bfloat16)
    eager = torch.full_like(x0, 1 / 3) + x0  # the fill value rounded to bf16 first: exact here
    kept = (x0.float() + 1 / 3).bfloat16()  # kept in fp32, rounded once at the store
    assert not torch.equal(eager, kept)
    found = cast_dropped(_evidence(FILL, [x0, x0], eager, kept))
    assert found is not None and found.cause == "cast_dropped" and "rounding of its value" in found.evidence[0]


class _Fp16CastDropped(torch.overrides.TorchFunctionMode):
    """A planted elision: `x.to(torch.float16)` keeps x as it is (a compiler that does not round at the cast)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.to and torch.float16 in (*args[1:], *(kwargs or {}).values()):
            return args[0]
        return func(*args, **(kwargs or {}))


class _ExponentOff(torch.overrides.TorchFunctionMode):
    """A planted bug with the cast kept: frexp's exponent one too large."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return torch.return_types.frexp((out[0], out[1] + 1)) if func is torch.frexp else out


def test_an_integer_output_is_a_dropped_cast_where_the_uncast_program_gives_it_exactly():
    """The 2.15.0 campaign's frexp: a bf16 65536 cast to fp16 is inf, whose exponent eager gives as 0; the compiled
    exponent, 17, is 65536's. With the cast kept, the same values differ for another reason and nothing is claimed."""
    from mode_target import ModeTarget

    from numfuzz.corpus.case import Case
    from numfuzz.judge.signature import signature_of
    from numfuzz.program.op_db.family import FORMS
    from numfuzz.runner.case_runner import run_case

    exponent = next(k for k, form in enumerate(FORMS["db.frexp"]) if form.call == "torch.frexp({0})[1]")
    frexp = Node.make("db.frexp", [1], form="torch.frexp({0})[1]", sample=exponent)
    graph = Graph((TensorSpec((12,), "bf16"),), (Node.make("cast", [0], dtype="fp16"), frexp), (2,))
    x = torch.tensor([65536.0, 1.0, 3.0] * 4, dtype=torch.bfloat16)
    outcome = run_case(Case.from_tensors(graph, [[x]], "eager"), ModeTarget("fp16_cast_dropped", _Fp16CastDropped), "cpu")
    assert outcome.verdict is Verdict.EXACT_MISMATCH and outcome.analysis is not None, outcome.detail
    assert outcome.analysis.cause == "cast_dropped" and signature_of("inductor", outcome).cause == "cast_dropped"
    wrong = run_case(Case.from_tensors(graph, [[x]], "eager"), ModeTarget("frexp_exponent_off", _ExponentOff), "cpu")
    assert wrong.verdict is Verdict.EXACT_MISMATCH and wrong.analysis is None, wrong.detail  # wrong, but not for a cast


class _I0KeptInFp32(torch.overrides.TorchFunctionMode):
    """A planted elision of an intermediate's rounding: i0 of an fp16 tensor keeps its result in fp32, as Inductor's fused
    kernel does (eager stores it in fp16, where 893446 is inf)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.i0 and args[0].dtype == torch.float16:
            return torch.i0(args[0].float())
        return func(*args, **(kwargs or {}))


class _IsinfAlways(torch.overrides.TorchFunctionMode):
    """A planted bug with the rounding kept: isinf is True everywhere."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return torch.ones_like(out) if func is torch.isinf else out


def test_an_integer_output_is_a_dropped_cast_where_an_intermediate_kept_in_fp32_gives_it_exactly():
    """The Thunder-main campaign's isinf(i0(x)) of an fp16 16.0: eager rounds i0's 893446 to fp16 inf, Inductor keeps it
    in fp32 (cast elision, known), so isinf is False; the program has no explicit cast. A wrong isinf is still no cast."""
    from mode_target import ModeTarget

    from numfuzz.corpus.case import Case
    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.judge.signature import signature_of
    from numfuzz.runner.case_runner import run_case

    i0 = Node.make("db.i0", [0], form="torch.i0({0})", sample=0)
    isinf = Node.make("db.isinf", [1], form="torch.isinf({0})", sample=0)
    graph = Graph((TensorSpec((12,), "fp16"),), (i0, isinf), (2,))
    x = torch.tensor([16.0, 1.0, 3.0] * 4, dtype=torch.float16)
    outcome = run_case(Case.from_tensors(graph, [[x]], "eager"), ModeTarget("i0_kept_in_fp32", _I0KeptInFp32), "cpu")
    assert outcome.verdict is Verdict.EXACT_MISMATCH and outcome.analysis is not None, outcome.detail
    assert outcome.analysis.cause == "cast_dropped" and "rounding of its result" in outcome.analysis.evidence[0]
    signature = signature_of("inductor", outcome)
    assert match_known(load_known(), signature, {}).id == "inductor-cast-elision"
    wrong = run_case(Case.from_tensors(graph, [[x]], "eager"), ModeTarget("isinf_always", _IsinfAlways), "cpu")
    assert wrong.verdict is Verdict.EXACT_MISMATCH and wrong.analysis is None, wrong.detail  # wrong, but not for a rounding
