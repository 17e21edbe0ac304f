"""Float attributes from the scalar recipe, and arguments left outside their op's domain, as the generator draws them."""

import numpy as np
import pytest

from numfuzz.program.generator import generate
from numfuzz.program.ops import OPS
from numfuzz.program.scalars import legalise
from numfuzz.program.space import GenConfig


def _attrs(op: str, name: str, seeds: int = 200, **config) -> list[float]:
    found = []
    for seed in range(seeds):
        graph, _ = generate(seed, GenConfig(ops=(op, "add"), **config))
        found += [n.attr(name) for n in graph.nodes if n.op == op]
    return found


def _bf16(value: float) -> float:
    bits = np.array([value], dtype=np.float32).view(np.uint32)
    return float(((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)[0])


def test_a_margin_is_drawn_inexact_in_bf16_and_passed_at_call_time_as_pytorch_185517_needs():
    margins = _attrs("margin_ranking_loss", "margin")
    assert {0.0, 0.5} < set(margins)
    assert any(m != _bf16(m) for m in margins)  # 1.7, 0.1, 1/3: eager rounds them to bf16, the reference does not
    assert ("margin", "moderate") in OPS["margin_ranking_loss"].scalars


@pytest.mark.parametrize(("op", "name", "low", "high"), [("layer_norm", "eps", 0.0, 1.0), ("huber_loss", "delta", 0.0, np.inf), ("celu", "alpha", -8.0, 8.0)])
def test_a_float_attribute_from_the_recipe_stays_legal(op: str, name: str, low: float, high: float):
    values = _attrs(op, name)
    assert len(set(values)) > 4 and all(low < v <= high and v != 0 for v in values)


def test_legal_kinds_of_a_recipe_value():
    assert legalise(1e39, "unit_interval") == 1 / 1e39 and legalise(0.0, "unit_interval") > 0 and legalise(0.7, "unit_interval") == 0.7
    assert legalise(0.0, "nonzero") == 0.5 and abs(legalise(-65504.0, "nonzero")) < 8


def test_out_of_domain_leaves_an_argument_unguarded_only_when_asked():
    def unguarded(share: float) -> int:
        count = 0
        for seed in range(100):
            graph, recipes = generate(seed, GenConfig(ops=("sqrt", "add"), out_of_domain=share))
            inputs = len(graph.inputs)
            for node in (n for n in graph.nodes if n.op == "sqrt"):
                (arg,) = node.args
                if arg < inputs:
                    count += recipes[arg].domain == "any"
                else:
                    count += graph.nodes[arg - inputs].op != "abs"
        return count

    assert unguarded(0.0) == 0
    assert unguarded(1.0) > 20
