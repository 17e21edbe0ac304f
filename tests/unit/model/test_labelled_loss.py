"""An image classifier's training step labels its images 0, 1, 2, ... over the batch, inside the compiled step: the
labels must not be a construct a target fails on by itself, or its crash is judged instead of the model's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from numfuzz.model.spec import LabelledLoss


class _Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.config = SimpleNamespace(num_labels=3)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, pixel_values: torch.Tensor, labels: torch.Tensor) -> SimpleNamespace:
        logits = self.head(pixel_values.flatten(1))
        return SimpleNamespace(loss=torch.nn.functional.cross_entropy(logits, labels))


@pytest.mark.thunder
def test_an_image_classifier_s_labels_trace_in_thunder():
    """Thunder's jit fails on a tensor's `%` (numfuzz-thunder-tensor-mod-operator): ViT's training step was that crash."""
    import thunder

    torch.manual_seed(0)
    step = LabelledLoss(_Classifier())
    images = torch.randn(5, 2, 4)
    eager = step(images)
    torch.testing.assert_close(thunder.jit(step)(images), eager)
