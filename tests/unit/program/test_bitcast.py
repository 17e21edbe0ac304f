"""view_dtype: a value's bits read as an integer of its width or as bytes, after a transpose too (pytorch#185515)."""

from __future__ import annotations

import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig, generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import torch_dtype
from numfuzz.targets import resolve

VALUES_TESTED = ("view_dtype",)  # its reference's bits are eager's (below)


def _transposed_bytes(dtype: str, dst: str) -> Graph:
    nodes = (
        Node.make("add", [0, 0]),
        Node.make("transpose", [1], dim0=0, dim1=1),
        Node.make("view_dtype", [2], src=str(torch_dtype(dtype)).removeprefix("torch."), dst=str(torch_dtype(dst)).removeprefix("torch.")),
    )
    return Graph((TensorSpec((4, 6), dtype),), nodes, (3,))


def test_bytes_of_a_transposed_value_are_eagers_in_the_reference_and_inferred_as_eager_gives_them():
    for dtype, dst, last in (("fp32", "u8", 16), ("bf16", "u8", 8), ("fp16", "i16", 4)):
        graph = _transposed_bytes(dtype, dst)
        assert infer_specs(graph)[-1] == TensorSpec((6, last), dst)
        program = CompiledProgram(graph, resolve("eager"), "cpu")
        x = torch.randn(4, 6).to(torch_dtype(dtype))
        (eager,), (reference,) = program.eager([x]), program.reference([x])
        assert torch.equal(eager, reference), dtype  # the reference reads eager's bits, not float64's
        assert evaluate(graph, [[x]], resolve("eager"), "cpu").verdict is Verdict.EQUAL


def test_bitcasts_are_drawn_by_default_in_low_precision_programs_only():
    assert "view_dtype" in GenConfig.default().ops
    config = GenConfig.default(ops=("view_dtype", "transpose", "add"))
    drawn = [n for seed in range(200) for n in generate(seed, config)[0].nodes if n.op == "view_dtype"]
    assert drawn and {n.attr("dst") for n in drawn} >= {"uint8"} and {n.attr("src") for n in drawn} <= {"float16", "bfloat16", "float32"}
