"""Autocast regions: the dtypes torch gives, the reference's rounding, the verdicts of two planted targets, the minimiser's pass."""

from __future__ import annotations

from pathlib import Path

import autocast_targets  # noqa: F401  (registers fp32_ops_low and matmul_full)
import pytest
import torch

from numfuzz.judge.execute import evaluate
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.autocast import FP32, LOWER, has_regions, region_label, with_region, without_region
from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import autocast_ops, infer_specs
from numfuzz.program.space import GenConfig
from numfuzz.program.values import torch_dtype
from numfuzz.targets import resolve


def _inputs(graph: Graph, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [
        torch.zeros(s.shape, dtype=torch.int64) if s.dtype == "i64" else (torch.rand(s.shape, generator=g) + 0.5).to(torch_dtype(s.dtype)) for s in graph.inputs
    ]


def test_the_policy_tables_are_torchs():
    """Every value of 200 drawn graphs with regions has the dtype torch's autocast gives it (the tables are CPU autocast's)."""
    seen, regions = set(), 0
    for seed in range(200):
        graph, _ = generate(seed, GenConfig(autocast=1.0, blocks=0.3, max_dim=4))
        if not has_regions(graph) or any(s.numel > 2**16 for s in graph.inputs):
            continue
        regions += 1
        everything = Graph(graph.inputs, graph.nodes, tuple(o for o in range(len(graph.inputs), graph.n_values)))
        specs = infer_specs(graph)[len(graph.inputs) :]
        try:
            got = compile_source(lower(everything))(*_inputs(graph))
        except RuntimeError:  # an index op on the zero indices or the like: dtypes are not at stake
            continue
        for node, spec, value in zip(graph.nodes, specs, got):
            assert value.dtype == torch_dtype(spec.dtype), f"{node.op} in {node.attr('autocast')}: torch gives {value.dtype}, numfuzz {spec.dtype}"
            seen.add(node.op)
    assert regions >= 40 and seen & autocast_ops(LOWER) and seen & autocast_ops(FP32)


def _linear_mse(dtype: str = "bf16") -> Graph:
    graph = Graph(
        (TensorSpec((8, 64), "fp32"), TensorSpec((16, 64), "fp32"), TensorSpec((8, 64), "fp32")),
        (Node.make("linear", [0, 1]), Node.make("mse_loss", [0, 2], reduction="sum")),
        (3, 4),
    )
    return with_region(graph, range(2), dtype)


def test_the_reference_rounds_where_autocast_casts():
    graph = _linear_mse()
    assert [s.dtype for s in infer_specs(graph)[3:]] == ["bf16", "fp32"] and region_label(graph) == "autocast=bf16"
    x, w, y = (t.double() for t in _inputs(graph))
    reference = compile_source(lower(graph, reference=True))(x, w, y)
    by_hand = torch.nn.functional.linear(x.to(torch.bfloat16).double(), w.to(torch.bfloat16).double())
    assert torch.equal(reference[0], by_hand) and not torch.equal(reference[0], torch.nn.functional.linear(x, w))
    assert "rounded_cast" in lower(graph, reference=True, grad=True)  # the gradient is rounded back through autocast's cast
    assert "with torch.autocast(x0.device.type, dtype=torch.bfloat16):" in lower(graph)


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_planted_fp32_policy_bug_is_found_and_a_dropped_cast_is_not(dtype):
    graph = _linear_mse(dtype)
    samples = [_inputs(graph, seed) for seed in range(8)]
    assert evaluate(graph, samples, resolve("eager"), "cpu").verdict is Verdict.EQUAL
    planted = evaluate(graph, samples, resolve("fp32_ops_low"), "cpu")
    assert planted.verdict.is_accuracy and planted.outputs[1].verdict in ("less_accurate", "nonfinite")  # fp16: the sum overflows
    assert evaluate(graph, samples, resolve("matmul_full"), "cpu").verdict in (Verdict.EQUAL, Verdict.MORE_ACCURATE)


def test_a_region_comes_off_node_by_node():
    graph = _linear_mse()
    assert not has_regions(without_region(graph)) and region_label(without_region(graph, [0])) == "autocast=bf16"
    assert [s.dtype for s in infer_specs(without_region(graph))[3:]] == ["fp32", "fp32"]


def test_replay_runs_a_seed_as_a_training_step_under_autocast(cli):
    seed = Path(__file__).resolve().parents[3] / "corpus" / "seeds" / "qwen2-mlp-bf16.json"
    result = cli("replay", seed, "--target", "eager", "--grad", "--autocast", "bf16")
    assert result.exit_code == 0, result.output
    assert "[autocast=bf16]" in result.output and "dx0" in result.output and "verdict: equal" in result.output
