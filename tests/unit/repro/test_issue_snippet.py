"""The issue text's snippet runs as written: a `--grad` case with an output that has no gradient (a count) included."""

from __future__ import annotations

import ast
import contextlib
import io

import torch

from numfuzz.corpus.case import Case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.repro.issue import snippet_source
from numfuzz.run_spec import RunSpec
from numfuzz.targets import resolve


def test_the_gradient_snippet_skips_an_output_that_has_no_gradient():
    n = 8
    graph = Graph((TensorSpec((n,), "fp32"),), (Node.make("tanh", [0]), Node.make("ge_scalar_count", [0], value=0.0, dim=0, keepdim=False)), (1, 2))
    x = torch.linspace(-2.0, 2.0, n)
    case = Case.from_tensors(graph, [[x]], RunSpec("eager", "cpu", samples=1, grad=True), [[torch.ones(n), torch.tensor(1.0)]])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet_source(case, resolve("eager"), "cpu"), "snippet", "exec"), {"__name__": "__main__"})
    lines = [line for line in printed.getvalue().splitlines() if "input gradients" in line]
    assert [line.split(":")[0].strip() for line in lines] == ["eager", "compiled", "float64"]
    (got,) = ast.literal_eval(lines[2].split("input gradients ")[1])
    assert torch.allclose(torch.tensor(got, dtype=torch.float64), 1 - torch.tanh(x.double()) ** 2, rtol=1e-12, atol=0)
