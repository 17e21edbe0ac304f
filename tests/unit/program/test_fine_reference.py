"""The reference finer than float64: float64 programs are drawn from the ops it evaluates, and it is correctly rounded
where torch's own float64 kernels are not."""

import mpmath
import numpy as np
import pytest
import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.program.fine import evaluable, fine_ops, fine_outputs, is_fine
from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import lower
from numfuzz.program.ops import OPS
from numfuzz.program.space import GenConfig
from numfuzz.targets import resolve

# the ops whose float64 reference values this file checks (`test_reference_values` finds every file's)
VALUES_TESTED = ("adaptive_avg_pool1d",)


def _exact(fn, x: float) -> float:
    with mpmath.workprec(400):
        value = fn(mpmath.mpf(x))
    with mpmath.workprec(53):
        return float(+value)


def _chain(op: str, shape=(64,)) -> Graph:
    return Graph((TensorSpec(shape, "fp64"),), (Node.make(op, [0]),), (1,))


@pytest.mark.parametrize(
    "op, fn, values",
    [
        ("acosh", mpmath.acosh, np.linspace(1.0, 1.0 + 2**-20, 64)),
        ("erfinv", mpmath.erfinv, np.linspace(0.999, 1 - 2**-40, 64)),
        ("expm1", mpmath.expm1, np.geomspace(1e-12, 1e-3, 64)),
        ("atanh", mpmath.atanh, np.geomspace(1e-9, 0.999, 64)),
    ],
)
def test_correctly_rounded_where_float64_is_not_exact_enough(op, fn, values):
    graph = _chain(op)
    [fine] = fine_outputs(lower(graph, reference=True), [values], [])
    exact = np.array([_exact(fn, float(v)) for v in values])
    assert np.array_equal(fine, exact)


def test_the_judge_takes_a_float64_programs_reference_from_it():
    """Eager runs the same float64 kernels as a float64 reference would: against one it would have no error at all."""
    graph = _chain("acosh")
    assert is_fine(graph)
    values = torch.linspace(1.0, 4.0, 64, dtype=torch.float64)
    program = CompiledProgram(graph, resolve("eager"), "cpu")
    [reference] = program.reference([values])
    [eager] = program.eager([values])
    assert not torch.equal(reference, eager)  # torch's float64 acosh is 1 ULP off at about a sixth of these; the fine reference is not
    assert torch.equal(reference, torch.tensor([_exact(mpmath.acosh, float(v)) for v in values], dtype=torch.float64))


def test_a_program_of_other_dtypes_keeps_the_float64_reference():
    graph = Graph((TensorSpec((4,), "fp32"),), (Node.make("exp", [0]),), (1,))
    assert not is_fine(graph)
    assert CompiledProgram(graph, resolve("eager"), "cpu").fine_source is None


def test_evaluable_ops_are_those_whose_template_it_runs():
    assert {"acosh", "erfinv", "expm1", "add", "pow", "sum", "mean", "gelu", "silu"} <= fine_ops()
    assert not evaluable(OPS["digamma"])  # its reference calls a float64 helper
    assert not evaluable(OPS["reshape"])  # a method
    assert not evaluable(OPS["gather"])  # an index input
    assert not evaluable(OPS["cast"])  # no template: a float64 program has nothing to cast


def test_float64_programs_are_drawn_at_their_share_from_those_ops():
    drawn = [generate(seed, GenConfig(fp64=0.5))[0] for seed in range(60)]
    fine = [g for g in drawn if is_fine(g)]
    assert 15 <= len(fine) <= 45
    assert all(n.op in fine_ops() for g in fine for n in g.nodes)
    none = [generate(seed, GenConfig())[0] for seed in range(30)]
    assert not any(is_fine(g) for g in none)  # share 0: no float64 program (a database op may still make a double)


def test_a_sum_and_a_mean_are_exact():
    graph = Graph((TensorSpec((3, 5), "fp64"),), (Node.make("sum", [0], dim=[1], keepdim=False), Node.make("mean", [0], dim=[0], keepdim=True)), (1, 2))
    values = np.array([[1e16, 1.0, -1e16, 2**-30, 3.0]] * 3)
    total, mean = fine_outputs(lower(graph, reference=True), [values], [])
    assert total.tolist() == [4.0 + 2**-30] * 3  # float64 summation order loses the 1.0
    assert mean.shape == (1, 5) and mean[0, 3] == 2**-30


def test_an_index_reduction_selects_the_extreme_and_adaptive_windows_average_exactly():
    """argmax and argmin are judged by what they select, which the fine reference takes as the extreme itself; an
    adaptive average pool's windows overlap where the length is no multiple of the output's (7 into 3: 0-3, 2-5, 4-7)."""
    graph = Graph(
        (TensorSpec((2, 7), "fp64"),),
        (Node.make("argmax", [0], dim=1), Node.make("argmin", [0], dim=0), Node.make("adaptive_avg_pool1d", [0], output_size=3)),
        (1, 2, 3),
    )
    values = np.array([[3.0, -1.0, 1e16, 1.0, -1e16, 2.0**-30, 5.0], [0.5, 0.25, 0.125, 7.0, 1.0, 2.0, 3.0]])
    chosen, least, pooled = fine_outputs(lower(graph, reference=True), [values], [])
    assert chosen.tolist() == [[1e16], [7.0]] and least.tolist() == [[0.5, -1.0, 0.125, 1.0, -1e16, 2.0**-30, 3.0]]
    windows = [(0, 3), (2, 5), (4, 7)]
    want = [[float(mpmath.fsum(row[a:b]) / (b - a)) for a, b in windows] for row in values.tolist()]
    assert pooled.tolist() == want  # the 1e16 and -1e16 cancel exactly in the middle window: float64 would lose the 1.0
