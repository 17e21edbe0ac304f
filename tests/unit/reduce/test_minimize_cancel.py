"""A minimisation the campaign cancels hands back its smallest case at once: the final analysis is the next run's."""

from __future__ import annotations

import gate_rounded_target  # noqa: F401  (registers the `gate_rounded` target)
import torch

import numfuzz.reduce.minimize as minimize
from numfuzz.corpus.case import Case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve

GRAPH = Graph((TensorSpec((64,), "fp16"),), (Node.make("silu", [0]),), (1,))


def _case() -> Case:
    return Case.from_tensors(GRAPH, [[(torch.randn(64, generator=torch.Generator().manual_seed(s)) * 2).to(torch.float16)] for s in range(4)], "gate_rounded")


def test_a_cancelled_minimisation_hands_back_its_smallest_case_without_analysing_it_again(monkeypatch):
    """The campaign asks for the smallest case so far and gives a grace to answer: the final analysis (and its walk back
    over earlier candidates) is the next run's, or a model-sized case's analysis would outlast the grace."""
    judged = []
    monkeypatch.setattr(minimize, "_latest_finding", lambda kept, analysed: judged.append(len(kept)))
    asked = iter([False] * 3 + [True] * 1000)
    result = minimize.minimize_case(_case(), resolve("gate_rounded"), "cpu", stop=lambda: next(asked))
    assert result.reproduced and result.exhausted and result.steps and judged == []
    assert result.case.content_hash() != _case().content_hash()  # smaller than the finding: kept for the next run
