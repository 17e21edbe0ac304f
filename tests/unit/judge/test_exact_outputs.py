"""Integer outputs judged exactly: how many elements differ from eager's, and by how much, counted without rounding."""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.exact_outputs import exact_words
from numfuzz.judge.oracle import compare_output
from numfuzz.judge.verdicts import Verdict


def test_int64_values_near_the_top_one_apart_differ_by_one():
    top = torch.iinfo(torch.int64).max
    eager = [torch.tensor([top, 5, top - 1])]
    target = [torch.tensor([top - 1, 5, top])]  # float64 would call each pair equal
    errors = compare_output(0, "i64", eager, eager, target)
    assert errors.verdict == Verdict.EXACT_MISMATCH.value and errors.worse == 2 and errors.elements == 3
    assert errors.target_max_abs == 1.0
    assert exact_words("db.neg", errors) == "db.neg: values differ from eager's at 2 of 3 elements (by up to 1)"


def test_equal_bools_are_equal():
    mask = [torch.tensor([True, False, True])]
    errors = compare_output(0, "bool", mask, mask, [m.clone() for m in mask])
    assert errors.verdict == Verdict.EQUAL.value and errors.worse == 0


def test_an_exact_mismatch_of_an_op_reading_only_inputs_is_filed_under_that_op_and_its_known_issue():
    """A Thunder-main campaign: argmax of three uint8 values gave an index of 4e18 once, and the minimiser could not
    reproduce it; argmax reads only the program's input, so the op is the culprit, and Inductor's small-integer
    reduction issue claims it."""
    from numfuzz.corpus.known import load_known, match_known
    from numfuzz.judge.analysis import computed_from_inputs
    from numfuzz.judge.execute import Outcome
    from numfuzz.judge.oracle import compare_output
    from numfuzz.judge.signature import signature_of
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.program.ir import Graph, Node, TensorSpec

    graph = Graph(
        (TensorSpec((3,), "u8"),),
        (Node.make("db.abs", [0], form="torch.abs({0})", sample=0), Node.make("db.argmax", [0], form="torch.argmax({0})", sample=16)),
        (1, 2),
    )
    exact = np.array([2.0])
    outputs = [compare_output(0, "u8", np.ones(3), np.ones(3), np.ones(3)), compare_output(1, "i64", exact, exact, np.array([4.37e18]))]
    outcome = Outcome(Verdict.EXACT_MISMATCH, "", outputs, oracle=Verdict.EXACT_MISMATCH)
    outcome.analysis = computed_from_inputs(graph, outcome)
    signature = signature_of("thunder:torchcompile", outcome, None, graph)
    assert signature.ops == ("db.argmax",) and signature.symptom == "exact_mismatch", signature
    main = {"torch": "2.11.0+cu130", "device": "cpu", "thunder": "0.2.7.dev0"}
    assert match_known(load_known(), signature, main).id == "inductor-cpu-small-int-arg-reduction"
    downstream = Graph(graph.inputs, (graph.nodes[0], Node.make("db.argmax", [1], form="torch.argmax({0})", sample=16)), (1, 2))
    assert computed_from_inputs(downstream, outcome) is None  # it reads a computed value: that value may differ first
