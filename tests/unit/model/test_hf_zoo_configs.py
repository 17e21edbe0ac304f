"""The zoo's added transformers architectures build from their small configs (nothing downloaded) and run in eager,
forward and with their own loss, at a second length too."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("transformers")

from numfuzz.model.spec import load_model  # noqa: E402


@pytest.mark.parametrize("arch", ["qwen3", "gpt_neox", "opt", "phi"])
def test_an_added_architecture_builds_small_and_runs(arch: str):
    model, (ids,), _ = load_model(f"hf:{arch}", "bf16", positions=8)
    with torch.no_grad():
        logits = model(ids).logits
    assert ids.shape == (1, 8) and logits.shape == (1, 8, 128) and logits.dtype == torch.bfloat16
    assert sum(p.numel() for p in model.parameters()) < 200_000  # small: a cell compiles it in seconds
    step, (ids,), loss = load_model(f"hf:{arch}", "fp32", train=True, positions=16)
    assert torch.isfinite(loss(step(ids)))
