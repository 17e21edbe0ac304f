"""Mutations: each applies to drawn graphs and keeps them well typed; a lineage rebuilds a case exactly and is recorded."""

from __future__ import annotations

import random

import pytest

from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.mutate import MUTATIONS, insert_cast, mutate
from numfuzz.program.ops import infer_specs


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_mutation_applies_to_drawn_graphs_and_keeps_them_well_typed(name):
    applied = 0
    for seed in range(80):
        graph, _ = generate(seed)
        if name == "drop_cast" and not any(n.op == "cast" for n in graph.nodes):
            graph, _ = mutate(graph, random.Random(seed))  # give it a cast to drop, often
        mutated = MUTATIONS[name](graph, random.Random(seed), "cpu", frozenset())
        if mutated is not None:
            infer_specs(mutated)
            assert len(mutated.inputs) == len(graph.inputs)
            applied += mutated != graph
    assert applied >= (3 if name == "drop_cast" else 20), applied


def test_an_inserted_cast_is_read_where_its_value_was():
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("exp", [0]), Node.make("tanh", [1])), (2,))
    mutated = insert_cast(graph, random.Random(1), "cpu")
    ops = [n.op for n in mutated.nodes]
    assert "cast" in ops and len(ops) == 3
    cast = ops.index("cast") + 1
    assert any(cast in n.args for n in mutated.nodes) and mutated.outputs == (3,)


def test_mutate_is_seeded():
    graph, _ = generate(5)
    assert mutate(graph, random.Random(9)) == mutate(graph, random.Random(9))


def test_a_lineage_rebuilds_the_case_and_is_its_provenance():
    from numfuzz.address import CaseAddress
    from numfuzz.corpus.make import make_case
    from numfuzz.run_spec import RunSpec

    run = RunSpec("inductor", samples=3)
    child = make_case(CaseAddress(7, lineage=(101, 202)), run)
    again = make_case(CaseAddress(7, lineage=(101, 202)), run)
    assert child.content_hash() == again.content_hash() != make_case(7, run).content_hash()
    assert child.provenance["lineage"]["seeds"] == [101, 202] and len(child.provenance["lineage"]["mutations"]) == 2
