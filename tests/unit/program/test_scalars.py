"""Scalars: the recipe and its legality, passed scalars in the lowered source, the second call, lines, repeated operands."""

from __future__ import annotations

import json
import random

import numpy as np
import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.size_order import size_key, smaller
from numfuzz.program.dtypes import FORMATS
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.op_spec import scalar
from numfuzz.program.samples import draw_samples
from numfuzz.program.scalars import EXACT, INEXACT, as_literals, draw_value, has_second_call, parameters, passed, second_call, values
from numfuzz.program.values import Recipe, draw_values, line_points
from numfuzz.reduce.passes.scalars import LiteralScalars

CLAMP = Graph(
    (TensorSpec((4,), "bf16"),),
    (Node.make("clamp_scalar", [0], min=-1.7, max=0.7, passed=(("max", 0.3),)), Node.make("mul_scalar", [1], value=0.1)),
    (2,),
)


def test_the_recipe_draws_every_kind_and_keeps_to_what_is_legal():
    rng = random.Random(0)
    drawn = {legal: [draw_value(rng, legal) for _ in range(3000)] for legal in ("any", "nonneg", "positive", "moderate")}
    assert all(v >= 0 for v in drawn["nonneg"]) and all(v > 0 for v in drawn["positive"])
    assert all(abs(v) <= 8 for v in drawn["moderate"])
    every = drawn["any"]
    assert any(str(v) == "-0.0" for v in every) and any(isinstance(v, int) for v in every)
    assert {abs(v) for v in every} >= set(EXACT) | set(INEXACT) | {1e39, 65504.0}
    assert any(abs(v) < 1e-30 for v in every if v)


def test_a_bound_stays_inside_its_dtype_s_range():
    rng = random.Random(1)
    for dtype in ("fp16", "bf16", "fp32"):
        spec = TensorSpec((2,), dtype)
        limit = FORMATS[dtype].max_value
        bounds = [scalar(rng, "bound", spec) for _ in range(2000)]
        assert max(abs(b) for b in bounds) == limit  # at the range, never past it (eager raises past it)


def test_passed_scalars_are_parameters_with_their_values_as_defaults():
    source = lower(CLAMP)
    assert source.startswith("def fn(x0, max_0=0.7):") and "max=max_0" in source and "t0 * 0.1" in source
    assert parameters(CLAMP) == [("max_0", 0.7)] and values(CLAMP) == [0.7] and has_second_call(CLAMP)
    fn = compile_source(source)
    x = torch.tensor([-2.0, 0.25, 0.5, 1.0]).bfloat16()
    assert torch.equal(fn(x)[0], fn(x, 0.7)[0]) and not torch.equal(fn(x)[0], fn(x, 0.3)[0])


def test_the_second_call_swaps_values_and_keeps_the_source():
    second = second_call(CLAMP)
    assert values(second) == [0.3] and passed(second.nodes[0]) == (("max", 0.7),)
    assert lower(second, defaults=False) == lower(CLAMP, defaults=False) and lower(second) != lower(CLAMP)
    assert second_call(second) == CLAMP
    literal = as_literals(CLAMP)
    assert parameters(literal) == [] and not has_second_call(literal) and "max=0.7" in lower(literal)


def test_a_passed_scalar_survives_the_json_round_trip_and_changes_the_content_hash():
    again = Graph.from_json(json.loads(json.dumps(CLAMP.to_json())))
    assert again == CLAMP and again.content_hash() == CLAMP.content_hash()
    assert as_literals(CLAMP).content_hash() != CLAMP.content_hash()


def test_the_generator_passes_scalars_at_its_share_and_only_there():
    config = GenConfig(ops=("clamp_scalar", "mul_scalar", "threshold", "exp"), scalar_args=1.0)
    graphs = [generate(seed, config)[0] for seed in range(40)]
    assert sum(has_second_call(g) for g in graphs) >= 20
    none = [generate(seed, GenConfig(ops=config.ops))[0] for seed in range(40)]
    assert not any(parameters(g) for g in none)


def test_inputs_compared_against_a_scalar_get_values_on_its_line():
    assert line_points((0.7,), "bf16").tolist() == [0.6953125, 0.69921875, 0.703125]  # bf16(0.7) and its neighbours
    assert line_points((1e39,), "fp16").tolist() == [65504.0]  # past the range: the largest finite value only
    recipe = Recipe("normal", "any", None, (0.7,))
    assert Recipe.from_json(recipe.to_json()) == recipe and "lines" not in Recipe("normal").to_json()
    values_drawn = draw_values(recipe, TensorSpec((4000,), "bf16"), np.random.Generator(np.random.PCG64(0)))
    on = np.isin(values_drawn, line_points((0.7,), "bf16"))
    assert 0.2 < on.mean() < 0.3


def test_a_line_outside_the_input_s_domain_places_nothing():
    """An input that log reads and a threshold of -2 compares: its values stay positive, and sit on the line at 0.5."""
    values_drawn = draw_values(Recipe("large", "positive", None, (-2.0, 0.5)), TensorSpec((4000,), "bf16"), np.random.Generator(np.random.PCG64(0)))
    assert (values_drawn > 0).all() and np.isin(values_drawn, line_points((0.5,), "bf16")).mean() > 0.2


def test_the_generator_puts_a_clamp_s_bounds_into_its_input_s_recipe():
    checked = 0
    for seed in range(10):
        graph, recipes = generate(seed, GenConfig(ops=("clamp_scalar",), min_nodes=1, max_nodes=1))
        (node,) = graph.nodes
        lines = recipes[node.args[0]].lines
        assert {v for v in (node.attr("min"), node.attr("max")) if v is not None} <= set(lines)
        (sample,) = draw_samples(graph, recipes, 0, 1)
        checked += bool(np.isin(sample[node.args[0]], line_points(lines, graph.inputs[0].dtype)).any())
    assert checked >= 5  # small inputs may draw no element there


def test_repeat_takes_one_value_as_both_operands():
    graphs = [generate(seed, GenConfig(ops=("sub", "mul"), repeat=1.0))[0] for seed in range(10)]
    assert all(n.args[0] == n.args[1] for g in graphs for n in g.nodes)


def test_a_literal_scalar_is_smaller_and_the_pass_proposes_it_first():
    x = [[torch.tensor([-2.0, 0.25, 0.5, 1.0]).bfloat16()]]
    case = Case.from_tensors(CLAMP, x, "synthetic")
    literal = Case.from_tensors(as_literals(CLAMP), x, "synthetic")
    assert size_key(literal) < size_key(case) and smaller(literal, case) is literal
    proposals = LiteralScalars().candidates(case)
    first = next(proposals)
    assert parameters(first.graph) == []
    once = proposals.send(False)  # the finding needs the argument: the second call's value is dropped next
    assert passed(once.graph.nodes[0]) == (("max", None),) and not has_second_call(once.graph)
