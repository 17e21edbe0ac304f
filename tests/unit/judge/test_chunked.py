"""The judge read a few elements at a time (`judge.chunks`) says what it says read whole: verdicts, signatures, errors, records.

Each case is judged and analysed twice, once with every value in one slice and once with slices of a
few elements (the oracle's slices, the sweep a point at a time, the rounding-error record per row),
and the two outcomes must be equal to the bit. A planted cancellation, a target one ULP off at every
value (every output a finding, analysed in full), a benign reformulation and a clean case.
"""

from __future__ import annotations

import pytest
import reformulating_target  # noqa: F401  (registers the `reformulated` target)
import torch

from numfuzz.check import CallableTarget
from numfuzz.corpus.case import Case
from numfuzz.judge import chunks
from numfuzz.judge.signature import signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

ROWS, ROW = 5, 37  # a slice of 16 elements splits rows, samples and every output


def _one_ulp_off(fn):
    def run(*args):
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        moved = tuple(torch.nextafter(o, torch.full_like(o, torch.inf)) if o.is_floating_point() else o for o in outs)
        return moved if isinstance(out, tuple) else moved[0]

    return run


def _samples(count: int, inputs: int, scale: float, seed: int) -> list[list[torch.Tensor]]:
    gen = torch.Generator().manual_seed(seed)
    return [[torch.rand(ROWS, ROW, generator=gen) * scale + scale / 8 for _ in range(inputs)] for _ in range(count)]


def _cancelling_case() -> tuple[Case, object]:
    """expm1 of a product of small values, then an add: the `reformulated` target's exp(x) - 1 cancels there."""
    spec = TensorSpec((ROWS, ROW), "fp32")
    graph = Graph((spec, spec, spec), (Node.make("mul", [0, 1]), Node.make("expm1", [3]), Node.make("add", [4, 2])), (5, 4))
    return Case.from_tensors(graph, _samples(3, 3, 2.0**-7, 1), "reformulated"), resolve("reformulated")


def _one_ulp_case() -> tuple[Case, object]:
    """fp16 values through a softmax, a mul and an exp: the probe exposes them, and the softmax (not pointwise: its worst
    elements measured one by one) is where the target starts to differ."""
    spec = TensorSpec((ROWS, ROW), "fp16")
    nodes = (Node.make("softmax", [0], dim=-1), Node.make("mul", [2, 1]), Node.make("exp", [3]))
    samples = [[x.half() for x in row] for row in _samples(2, 2, 1.0, 2)]
    return Case.from_tensors(Graph((spec, spec), nodes, (4,)), samples, "one_ulp_off"), CallableTarget(_one_ulp_off, "one_ulp_off")


def _benign_case() -> tuple[Case, object]:
    """addcmul as a + (b*c) on cancelling inputs: many ULPs off, within rounding (three inputs measured pointwise)."""
    samples = []
    for row in _samples(3, 2, 1.0, 3):
        b, c = row[0] + 0.5, row[1] + 0.5
        a = -(b.double() * c.double() * (1 + torch.randn(ROWS, ROW, generator=torch.Generator().manual_seed(4), dtype=torch.float64) * 2.0**-20)).float()
        samples.append([a, b, c])
    spec = TensorSpec((ROWS, ROW), "fp32")
    graph = Graph((spec, spec, spec), (Node.make("addcmul", [0, 1, 2], value=1.0),), (3,))
    return Case.from_tensors(graph, samples, "reformulated"), resolve("reformulated")


def _clean_case() -> tuple[Case, object]:
    spec = TensorSpec((ROWS, ROW), "fp32")
    graph = Graph((spec,), (Node.make("tanh", [0]), Node.make("sum", [1], dim=-1, keepdim=False)), (2,))
    return Case.from_tensors(graph, _samples(4, 1, 3.0, 5), "eager"), resolve("eager")


CASES = {"cancellation": _cancelling_case, "one_ulp_off": _one_ulp_case, "within_rounding": _benign_case, "clean": _clean_case}


def _judged(case: Case, target, chunk: int, monkeypatch) -> tuple[dict, object]:
    monkeypatch.setattr(chunks, "CHUNK_ELEMENTS", chunk)
    outcome = run_case(case, target, "cpu")
    data = {k: v for k, v in outcome.to_json().items() if k not in ("compile_s", "run_s")}
    return data, signature_of(target.name, outcome, case.run, case.graph)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_case_judged_in_slices_is_judged_as_whole(name, monkeypatch):
    case, target = CASES[name]()
    whole, whole_signature = _judged(case, target, 2**20, monkeypatch)
    for chunk in (16, 50):
        sliced, sliced_signature = _judged(case, target, chunk, monkeypatch)
        assert sliced == whole, chunk
        assert sliced_signature == whole_signature
    expected = {"cancellation": "less_accurate", "one_ulp_off": "less_accurate", "within_rounding": "within_rounding", "clean": "equal"}
    assert whole["verdict"] == expected[name], whole


def test_the_planted_cancellation_is_found_in_slices(monkeypatch):
    """The sweep read a point at a time still shows the planted bug: the cause is the sweep's."""
    case, target = _cancelling_case()
    monkeypatch.setattr(chunks, "CHUNK_ELEMENTS", 16)
    outcome = run_case(case, target, "cpu")
    assert outcome.verdict is Verdict.LESS_ACCURATE
    assert outcome.analysis.op == "expm1" and outcome.analysis.cause == "cancellation", outcome.analysis
    record = outcome.analysis.rounding_error
    assert record.stored["measured"] == 3 * ROWS * ROW and record.stored["all_elements"]


def test_a_flat_reads_any_slice_across_its_parts():
    parts = [torch.arange(5, dtype=torch.float16), torch.arange(5, 12, dtype=torch.float32).reshape(7, 1).t()]
    flat = chunks.Flat(parts)
    whole = torch.cat([p.double().reshape(-1) for p in parts]).numpy()
    assert flat.size == 12 and (flat.whole() == whole).all()
    assert all((flat.slice(a, b) == whole[a:b]).all() for a in range(12) for b in range(a, 13))
