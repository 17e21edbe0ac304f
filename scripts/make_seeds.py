#!/usr/bin/env python3
"""Rebuild corpus/seeds/ from the snippets of the Qwen2 accuracy report.

Each seed is a benign case: the compiled result is as accurate as eager or better.
Inputs are drawn with numpy's PCG64 from fixed seeds and stored as exact bits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import save_case
from numfuzz.environment import default_device, versions
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.values import round_to
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve


def qwen2_mlp() -> Graph:
    """down(silu(gate(x)) * up(x)) in bf16, as in the report's QwenLIKE2MLP."""
    specs = [TensorSpec((32, 2), "bf16"), TensorSpec((3, 2), "bf16"), TensorSpec((3, 2), "bf16"), TensorSpec((2, 3), "bf16")]
    nodes = [
        Node.make("linear", [0, 1]),  # 4: gate(x)
        Node.make("silu", [4]),  # 5
        Node.make("linear", [0, 2]),  # 6: up(x)
        Node.make("mul", [5, 6]),  # 7
        Node.make("linear", [7, 3]),  # 8: down(...)
    ]
    return Graph(tuple(specs), tuple(nodes), (8,))


def silu_mul() -> Graph:
    """b * silu(a) in bf16, the report's `bar`."""
    specs = (TensorSpec((2, 2), "bf16"), TensorSpec((2, 2), "bf16"))
    return Graph(specs, (Node.make("silu", [0]), Node.make("mul", [1, 2])), (3,))


def rope(dtype: str) -> Graph:
    """cos + cat(-x2, x1) * sin with RoPE's broadcasting shapes, the report's `foo`."""
    x = TensorSpec((1, 28, 32, 1), dtype)
    trig = TensorSpec((1, 1, 32, 2), dtype)
    nodes = (
        Node.make("neg", [1]),  # 4: -x2
        Node.make("cat", [4, 0], dim=-1),  # 5: cat((-x2, x1), -1)
        Node.make("mul", [5, 3]),  # 6: * sin
        Node.make("add", [2, 6]),  # 7: cos + ...
    )
    return Graph((x, x, trig, trig), nodes, (7,))


SEEDS = {
    "qwen2-mlp-bf16": (qwen2_mlp, ("normal", "normal", "normal", "normal"), 16),
    "silu-mul-bf16": (silu_mul, ("normal", "normal"), 64),
    "rope-fp32": (lambda: rope("fp32"), ("uniform01", "uniform01", "normal", "normal"), 4),
    "rope-bf16": (lambda: rope("bf16"), ("uniform01", "uniform01", "normal", "normal"), 4),
}


def draw(kind: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.random(shape) if kind == "uniform01" else rng.normal(0.0, 1.0, shape)


def build(name: str, target: str, device: str) -> Case:
    make_graph, kinds, n_samples = SEEDS[name]
    graph = make_graph()
    rng = np.random.Generator(np.random.PCG64(sum(map(ord, name))))
    samples = [[round_to(draw(k, s.shape, rng), s) for k, s in zip(kinds, graph.inputs)] for _ in range(n_samples)]
    provenance = {"seed": None, "source": f"seed report snippet: {name}", **versions(), "device": device}
    case = Case.from_tensors(graph, samples, target, provenance=provenance)
    case.result = run_case(case, resolve(target), device).to_json()
    return case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("corpus/seeds"))
    parser.add_argument("--target", default="thunder:torchcompile")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    device = args.device or default_device()
    for name in SEEDS:
        case = build(name, args.target, device)
        path = save_case(case, args.out, stem=name)
        print(f"{path}: {case.result['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
