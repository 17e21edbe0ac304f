"""The float64 reference honours explicit casts: they round, then evaluation goes on in float64.

That a target eliding such casts is judged less accurate needs a compiler: integration/test_planted.py.
"""

import torch

from numfuzz.corpus.case import Case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import ROUND_TO_SOURCE, compile_source, lower


def round_trip_graph() -> Graph:
    """y = x.to(bf16).float() * 3 in fp32: the cast is the program's intent."""
    nodes = (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32"), Node.make("mul_scalar", [2], value=3.0))
    return Graph((TensorSpec((64,), "fp32"),), nodes, (3,))


def test_reference_rounds_at_explicit_casts():
    x = torch.randn(64, dtype=torch.float32)
    (ref,) = compile_source(lower(round_trip_graph(), reference=True))(x.double())
    assert ref.dtype == torch.float64
    assert torch.equal(ref, x.to(torch.bfloat16).double() * 3)
    assert not torch.equal(ref, x.double() * 3)


def test_reference_rounds_once():
    ns = {"torch": torch}
    exec(ROUND_TO_SOURCE, ns)
    x = torch.tensor([1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-30), 1 + 2**-11 + 2**-40], dtype=torch.float64)
    # torch's own x.to(bf16) rounds through fp32 and lands on 1.0 here
    assert ns["round_to"](x[:2], torch.bfloat16).tolist() == [1 + 2**-7, -(1 + 2**-7)]
    assert ns["round_to"](x[2:], torch.float16).item() == 1 + 2**-10


def test_reference_computes_in_float64_without_casts():
    g = Graph((TensorSpec((8,), "bf16"), TensorSpec((8,), "bf16")), (Node.make("add", [0, 1]),), (2,))
    a, b = torch.randn(8).bfloat16(), torch.randn(8).bfloat16()
    (ref,) = compile_source(lower(g, reference=True))(a.double(), b.double())
    assert torch.equal(ref, a.double() + b.double())


def test_case_round_trips_exact_bits():
    g = round_trip_graph()
    x = torch.randn(64).to(torch.float32)
    x[0] = float("nan")
    x[1] = -0.0
    case = Case.from_tensors(g, [[x]], "eager")
    (back,) = Case.from_json(case.to_json()).tensors()[0]
    assert torch.equal(back.view(torch.int32), x.view(torch.int32))
