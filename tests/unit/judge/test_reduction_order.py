"""A non-finite sum or product that eager makes too from the same terms in another order is within rounding."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import load_bounds, parse_bounds
from numfuzz.judge.rules import final_verdict
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.eager import Eager


class _Prod(TorchFunctionMode):
    def __init__(self, how: str):
        super().__init__()
        self.how = how

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is not torch.prod:
            return func(*args, **kwargs)
        x = args[0]
        if self.how == "backwards":  # multiplies from the back: another order, no bug
            return func(x.flip(kwargs.get("dim", -1)), *args[1:], **kwargs)
        if self.how == "rolled":  # the terms rotated by one: another order, and so another order in its backward
            return func(x.roll(1, kwargs.get("dim", -1)), *args[1:], **kwargs)
        if self.how == "halves":  # each half multiplied apart, then the two products: as two threads split it
            dim, keepdim = kwargs.get("dim", -1), kwargs.get("keepdim", False)
            halves = [func(h, dim=dim, keepdim=True) for h in x.tensor_split(2, dim)]
            return func(torch.cat(halves, dim), dim=dim, keepdim=keepdim)
        out = func(*args, **kwargs)  # NaN wherever a zero is among the terms: a bug in any order
        return torch.where((x == 0).any(dim=kwargs.get("dim", -1), keepdim=kwargs.get("keepdim", False)), torch.nan, out)


class PlantedProd(Eager):
    def __init__(self, arg: str | None):
        self.how, self.name = arg or "backwards", f"planted_prod:{arg or 'backwards'}"

    def prepare(self, fn: Callable, device: str) -> Callable:
        def run(*args):
            with _Prod(self.how):
                return fn(*args)

        return run


register("planted_prod", PlantedProd, "eager with prod from the back, or NaN at zeros (tests only)")
PROD = Graph((TensorSpec((8, 4), "bf16"),), (Node.make("prod", [0], dim=-1, keepdim=True),), (1,))
BIG = 2.0**64  # two of them overflow fp32, where bf16 products accumulate


def _terms(first: float) -> torch.Tensor:
    x = torch.full((8, 4), BIG)
    x[:, 0] = first
    return x.to(torch.bfloat16)


def test_a_product_that_overflows_in_another_order_is_rounding():
    outcome = run_case(Case.from_tensors(PROD, [[_terms(0.0)]], "planted_prod:backwards"), resolve("planted_prod:backwards"), "cpu")
    assert outcome.verdict is Verdict.WITHIN_ROUNDING  # eager from the front: 0; from the back: inf * 0
    assert "non-finite at all 8 elements" in outcome.analysis.reordered and outcome.rule == "reordered_reduction"


def test_a_nan_no_order_gives_stays_a_finding():
    x = torch.tensor([[0.0, 1.0, 2.0, 3.0]] * 8).to(torch.bfloat16)  # 0 in every order
    outcome = run_case(Case.from_tensors(PROD, [[x]], "planted_prod:nan_at_zero"), resolve("planted_prod:nan_at_zero"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE and outcome.analysis.reordered is None


def test_judged_again_with_any_bound_the_reordered_product_stays_rounding():
    outcome = run_case(Case.from_tensors(PROD, [[_terms(0.0)]], "planted_prod:backwards"), resolve("planted_prod:backwards"), "cpu")
    facts = replace(outcome.analysis, cause="kernel_accuracy")  # a cause the bound decides, and no input move explains it
    tight = parse_bounds('[[bound]]\nops = ["prod"]\nulp = 0\nsource = "tests"\n', "tight.toml", load_bounds())
    assert final_verdict(outcome.oracle, facts, tight).verdict is Verdict.WITHIN_ROUNDING  # the order, not a bound, explains it


def test_a_gradient_that_overflows_in_another_order_is_rounding_too():
    """prod([0, 2**100, 2**100, 2**-100]): eager's gradient of the 0 is 2**100; rotated, the backward forms 2**200 first: inf."""
    from numfuzz.run_spec import RunSpec

    x = torch.tensor([[0.0, 2.0**100, 2.0**100, 2.0**-100]] * 8).to(torch.bfloat16)
    upstream = [[torch.ones(8, 1, dtype=torch.bfloat16)]]
    case = Case.from_tensors(PROD, [[x]], RunSpec("planted_prod:rolled", "cpu", samples=1, grad=True), upstream)
    outcome = run_case(case, resolve("planted_prod:rolled"), "cpu")
    assert outcome.oracle is Verdict.NONFINITE and outcome.analysis.gradient_of == 0, (outcome.verdict, outcome.detail)
    assert outcome.verdict is Verdict.WITHIN_ROUNDING and outcome.rule == "reordered_reduction", outcome.detail
    assert "input-gradient elements the target made non-finite" in outcome.analysis.reordered


def test_a_product_that_overflows_split_over_threads_is_rounding():
    """Terms a^4 | c, c, c, a (a = 2**-60, c = 2**60): from the front, from the back and rotated by 1 to 3 the running
    product underflows (or stays in range) before it can overflow; each half apart gives 0 and inf, and 0 * inf is NaN."""
    a, c = 2.0**-60, 2.0**60
    x = torch.tensor([[a, a, a, a, c, c, c, a]] * 2).to(torch.bfloat16)
    graph = Graph((TensorSpec((2, 8), "bf16"),), (Node.make("prod", [0], dim=-1, keepdim=False),), (1,))
    outcome = run_case(Case.from_tensors(graph, [[x]], "planted_prod:halves"), resolve("planted_prod:halves"), "cpu")
    assert outcome.oracle is Verdict.NONFINITE and outcome.verdict is Verdict.WITHIN_ROUNDING, outcome.detail
    assert "in chunks" in outcome.analysis.reordered and outcome.rule == "reordered_reduction"


def test_a_nan_from_the_product_of_a_0d_value_is_no_order_of_its_one_term():
    """torch reads a 0-d value's dim 0 as one element's: its product has one term, which no order changes."""
    graph = Graph((TensorSpec((), "bf16"),), (Node.make("prod", [0], dim=0, keepdim=False),), (1,))
    x = torch.tensor(0.0, dtype=torch.bfloat16)
    outcome = run_case(Case.from_tensors(graph, [[x]], "planted_prod:nan_at_zero"), resolve("planted_prod:nan_at_zero"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE and outcome.analysis.reordered is None, outcome.detail
