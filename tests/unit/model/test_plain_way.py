"""How Thunder's jit is given a transformers model: with transformers' context variables inert where the model sets them,
as shipped where it does not, and as shipped where the model itself fails with them inert (it reads what they collect)."""

from __future__ import annotations

import pytest
import torch

output_capturing = pytest.importorskip("transformers.utils.output_capturing")

from numfuzz.model.hf_zoo.plain import WAY_INERT, WAY_SHIPPED, WAY_SHIPPED_READS, run_way  # noqa: E402


class _Collecting(torch.nn.Module):
    """Sets transformers' hidden-state collector, as a model's forward does; `reads`: then takes a layer from it, as a
    multimodal model takes its vision features from a hidden layer."""

    def __init__(self, sets: bool, reads: bool):
        super().__init__()
        self.sets, self.reads = sets, reads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.sets:
            return x * 2
        variable = output_capturing._active_collector
        token = variable.set({"hidden_states": [x + 1]})
        try:
            return variable.get()["hidden_states"][0] * 2 if self.reads else x * 2
        finally:
            variable.reset(token)


@pytest.mark.parametrize(
    "sets, reads, target, way",
    [
        (False, False, "thunder:torchcompile", WAY_SHIPPED),
        (True, False, "thunder:torchcompile", WAY_INERT),
        (True, True, "thunder:torchcompile", WAY_SHIPPED_READS),
        (True, True, "inductor", WAY_SHIPPED),
    ],
)
def test_the_way_a_model_is_given_to_thunder(sets, reads, target, way):
    model, inputs = _Collecting(sets, reads), (torch.ones(2),)
    got, context = run_way(target, model, inputs)
    assert got == way
    with context:
        assert torch.equal(model(*inputs), torch.full((2,), 4.0 if reads else 2.0))  # the model computes what it computes


class _Experts(torch.nn.Module):
    """Computes by its config's experts implementation, as transformers' MoE experts dispatch (`use_experts_implementation`)."""

    def __init__(self, sets: bool = False):
        super().__init__()
        self.config = type("Config", (), {"_experts_implementation": "grouped_mm"})()
        self.sets = sets

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.sets:  # also sets the collector, as a transformers 5 model does
            output_capturing._active_collector.set(None)
        return x * (3 if self.config._experts_implementation == "batched_mm" else 2)


@pytest.mark.parametrize(
    "sets, target, way, inside",
    [
        (False, "thunder:torchcompile", "MoE experts as batched_mm", 3.0),
        (True, "thunder:torchcompile", "context variables inert and MoE experts as batched_mm", 3.0),
        (False, "inductor", WAY_SHIPPED, 2.0),
    ],
)
def test_thunder_is_given_a_mixture_of_experts_with_its_experts_as_batched_mm(sets, target, way, inside):
    """transformers' grouped_mm experts call a custom op Thunder's jit cannot trace: the whole cell runs batched_mm."""
    from numfuzz.model.hf_zoo.plain import way_words

    model, inputs = _Experts(sets), (torch.ones(2),)
    got, context = run_way(target, model, inputs)
    assert got == way and model.config._experts_implementation == "grouped_mm"
    with context:
        assert torch.equal(model(*inputs), torch.full((2,), inside))
    assert model.config._experts_implementation == "grouped_mm"  # as it was after
    if sets:
        assert way_words(got) == "with its context variables inert and with its MoE experts as batched_mm"
