"""One verdict, live and stored: a case judged under bounds B gets what its stored facts, judged again under B, give.

Each planted case below reaches one rule (`judge.rules`). It is judged once under the shipped
bounds and stored as JSON; then, for bounds scaled tighter or looser at its ops, the live
judgement under those bounds must equal the stored one's re-judgement. No compile: the targets
are eager with one op planted.
"""

from __future__ import annotations

import json

import pytest
import reformulating_target  # noqa: F401  (registers `reformulated`)
import rounding_target  # noqa: F401  (registers `rounded`)
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gradients import NeighbourTanhBackward, SloppyTanhBackward, _tanh_case
from test_nonfinite_class import ACOSH_COS
from test_nonfinite_rest import POLE
from test_nonfinite_rest import X as POLE_X
from test_position_analysis import FMOD_COS
from test_position_analysis import X as FMOD_X
from test_reduction_order import PROD, _terms

from numfuzz.corpus.case import Case
from numfuzz.judge.bounds import Bounds, load_bounds, parse_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.rules import RULES, verdict_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

SHIPPED = load_bounds([])


def _addcmul() -> Case:
    gen = torch.Generator().manual_seed(0)
    b, c = torch.rand(64, generator=gen) + 0.5, torch.rand(64, generator=gen) + 0.5
    a = -(b.double() * c.double() * (1 + torch.randn(64, generator=gen, dtype=torch.float64) * 2.0**-20)).float()
    graph = Graph(tuple(TensorSpec((64,), "fp32") for _ in range(3)), (Node.make("addcmul", [0, 1, 2], value=1.0),), (3,))
    return Case.from_tensors(graph, [[a, b, c]], "reformulated")


def _amplified() -> Case:
    """log(log(abs(log_softmax(x))).to(fp16)): the rounded target's log_softmax is the more accurate, and log(log(1.0)) is -inf."""
    nodes = (Node.make("log_softmax", [0], dim=0), Node.make("abs", [1]), Node.make("log", [2]), Node.make("cast", [3], dtype="fp16"), Node.make("log", [4]))
    x = torch.tensor([0.001953125, -0.375, -0.01953125], dtype=torch.bfloat16)
    return Case.from_tensors(Graph((TensorSpec((3,), "bf16"),), nodes, (5,)), [[x]], "rounded")


# (name, case, target, the ops whose bounds scale, whether their backward's bound scales)
CASES = {
    "value_within_bound": (_addcmul, "reformulated", ("addcmul",), False),
    "nonfinite_rest": (lambda: Case.from_tensors(POLE, [[POLE_X]], "cos_up"), "cos_up", ("cos", "log", "digamma"), False),
    "class_rest": (lambda: Case.from_tensors(ACOSH_COS, [[POLE_X]], "cos_up"), "cos_up", ("cos", "acosh"), False),
    "reordered_reduction": (lambda: Case.from_tensors(PROD, [[_terms(0.0)]], "planted_prod:backwards"), "planted_prod:backwards", ("prod",), False),
    "position_within_bound": (lambda: Case.from_tensors(FMOD_COS, [[FMOD_X]], "tail_cos:1"), "tail_cos:1", ("cos", "fmod"), False),
    "gradient_within_bound": (lambda: _tanh_case(grad=True, low=1.0, high=3.0, n=256), NeighbourTanhBackward(), ("tanh",), True),
    "gradient finding": (lambda: _tanh_case(grad=True), SloppyTanhBackward(), ("tanh",), True),
    "amplified": (_amplified, "rounded", ("log_softmax", "abs", "log"), False),
}


def _scaled(ops: tuple[str, ...], backward: bool, scale: float) -> Bounds:
    """The shipped bounds with these ops' (and their backwards') bounds times `scale`."""
    entries = []
    for op in ops:
        names = [op, f"{op}.backward"] if backward else [op]
        for name in names:
            ulp = SHIPPED.for_device(op, "cpu").ulp * scale + (SHIPPED.default.ulp * scale if name.endswith(".backward") else 0.0)
            entries.append(f'[[bound]]\nops = ["{name}"]\nulp = {ulp!r}\nsource = "tests, scaled {scale}"\n')
    return parse_bounds("\n".join(entries), "scaled.toml", SHIPPED)


_STORED: dict[str, Outcome] = {}


def _stored(name: str) -> Outcome:
    """The case judged once under the shipped bounds, stored and loaded as a campaign's corpus holds it."""
    if name not in _STORED:
        make, target, _, _ = CASES[name]
        target = resolve(target) if isinstance(target, str) else target
        _STORED[name] = Outcome.from_json(json.loads(json.dumps(run_case(make(), target, "cpu", bounds=SHIPPED).to_json())))
    return _STORED[name]


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(CASES)), scale=st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 8.0, 1e6]))
def test_live_and_stored_give_one_verdict_under_any_bounds(name, scale):
    make, target, ops, backward = CASES[name]
    bounds = _scaled(ops, backward, scale)
    live = run_case(make(), resolve(target) if isinstance(target, str) else target, "cpu", bounds=bounds)
    assert verdict_of(_stored(name), bounds) is live.verdict, (name, scale, live.detail)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_reaches_its_rule_and_a_tighter_bound_reaches_every_bounded_rule(name):
    stored = _stored(name)
    rule = next((r for r in RULES if r.name == name), None)
    if rule is None:  # the gradient finding: no rule holds, a finding under the shipped bounds
        assert stored.verdict is Verdict.LESS_ACCURATE and stored.rule == ""
        return
    assert stored.rule == name and stored.oracle is not stored.verdict
    _, _, ops, backward = CASES[name]
    tighter = verdict_of(stored, _scaled(ops, backward, 0.0))
    assert (tighter is stored.oracle) is rule.bounded, f"{name}: under zero bounds {tighter.value}"
