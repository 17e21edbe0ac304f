#!/usr/bin/env python3
"""Rebuild the analysis and the `reproduces` statements of corpus/findings/, and the cases built here (expm1, erf, gelu's gradient).

Each committed finding states where it reproduces (numfuzz.corpus.regression). The statements
below were measured: torch 2.9.1 and 2.14.1 on CPU, with the vector ISA forced to AVX2 as well
(ATEN_CPU_CAPABILITY=avx2, each with its own Inductor cache folder). Run from the repository root
on a torch where the case reproduces; it rewrites the files in place (names stay: they are
content hashes of graph, inputs and target, or chosen names).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import load_case, save_case
from numfuzz.environment import provenance
from numfuzz.judge.signature import signature_of
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.values import round_to
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

FINDINGS = Path("corpus/findings")
BOTH_ISAS = ["AVX512", "AVX2"]
STATEMENTS = {
    "inductor-softmax-nonfinite": {
        "torch": ">=2.9",
        "device": "cpu",
        "isa": BOTH_ISAS,
        "why": "no upstream report; the fused kernel takes each element from the vectorised pow and the row max from scalar std::pow",
    },
    "torchcompile-drops-bf16-round-trip": {
        "thunder": "==0.2.6",
        "device": "cpu",
        "why": "Inductor elides the round trip by default (pytorch#183761); thunder 0.2.6 imports on torch 2.9 to 2.11",
    },
    "inductor-expm1-fp32-cancels": {
        "torch": "<2.14.1",
        "device": "cpu",
        "isa": BOTH_ISAS,
        "why": "vectorised expm1 as exp(x) - 1 (pytorch#189803), fixed by PR #190533; 64 elements keep the vectorised path on any ISA",
    },
    "thunder-torch-gelu-tanh-fp16-backward-nan": {
        "thunder": "==0.2.6",
        "device": "cpu",
        "why": "no upstream report; thunder's gelu(approximate='tanh') decomposes into a*a*a in the input dtype: in fp16 a*a overflows for |a| >= 256 and the VJP multiplies that inf by tanh's zero slope, NaN where eager's gradient is 1",
    },
    "thunder-sigmoid-fp32-backward-nan": {
        "thunder": "==0.2.6",
        "device": "cpu",
        "why": "no upstream report; thunder's sigmoid is 1/(1 + exp(-a)), whose VJP multiplies exp(-a) = inf by the reciprocal's 0 for a < -88.7: NaN where eager's gradient is 0 (on the torch and torchcompile executors)",
    },
    "inductor-erf-fp32-absolute-error": {
        "torch": ">=2.9",
        "device": "cpu",
        "isa": BOTH_ISAS,
        "why": "vectorised erf is an absolute-error approximation (pytorch#198183, open)",
    },
}


def unary_case(op: str, low: float, high: float) -> Case:
    """`op` on 64 fp32 values from `low` to `high`: the vectorised loop, at least one full AVX-512 vector wide."""
    spec = TensorSpec((64,), "fp32")
    graph = Graph((spec,), (Node.make(op, [0]),), (1,))
    values = round_to(np.geomspace(low, high, 64), spec)
    return Case.from_tensors(graph, [[values]], "inductor", provenance={"seed": None, "source": "scripts/make_regressions.py"})


BUILT = {"inductor-expm1-fp32-cancels": ("expm1", 1e-7, 1e-5), "inductor-erf-fp32-absolute-error": ("erf", 1e-9, 1e-6)}


def gradient_case(op: str, dtype: str, values: np.ndarray, target: str, **attrs: object) -> Case:
    """`op` on 64 values with gradients, for an upstream gradient of ones."""
    spec = TensorSpec((64,), dtype)
    graph = Graph((spec,), (Node.make(op, [0], **attrs),), (1,))
    run = RunSpec(target, samples=1, grad=True)
    ones = torch.ones(64, dtype=round_to(values[:1], TensorSpec((1,), dtype)).dtype)
    return Case.from_tensors(graph, [[round_to(values, spec)]], run, [[ones]], provenance={"seed": None, "source": "scripts/make_regressions.py"})


GRADIENT_CASES = {
    "thunder-torch-gelu-tanh-fp16-backward-nan": lambda: gradient_case("gelu", "fp16", np.geomspace(1.0, 1000.0, 64), "thunder:torch", approximate="tanh"),
    "thunder-sigmoid-fp32-backward-nan": lambda: gradient_case("sigmoid", "fp32", -np.geomspace(1.0, 1000.0, 64), "thunder:torchcompile"),
}


def refresh(case: Case, stem: str) -> None:
    outcome = run_case(case, resolve(case.target), "cpu")
    if not outcome.verdict.is_finding:
        sys.exit(f"{stem}: {case.target} gives {outcome.verdict.value} here; run this where it reproduces")
    case.result = outcome.to_json()
    case.provenance = {**case.provenance, **provenance("cpu")}
    case.extra = {**case.extra, "signature": signature_of(case.target, outcome).to_json(), "reproduces": STATEMENTS[stem]}
    print(f"{stem}: {outcome.verdict.value}, {outcome.analysis.cause if outcome.analysis else '-'} -> {save_case(case, FINDINGS, stem)}")


def main() -> None:
    for stem in STATEMENTS:
        path = FINDINGS / f"{stem}.json"
        if path.exists():
            case = load_case(path)
        else:
            case = GRADIENT_CASES[stem]() if stem in GRADIENT_CASES else unary_case(*BUILT[stem])
        refresh(case, stem)


if __name__ == "__main__":
    main()
