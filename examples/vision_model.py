"""A model from outside transformers: torchvision's ResNet-18 with random weights (nothing downloaded), on 2 images of
64x64, in bf16. `numfuzz model examples/vision_model.py:resnet18 --target inductor` (needs torchvision, installed beside
the torch it was built for: `pip install torchvision==0.24.1` with torch 2.9.1)."""

from __future__ import annotations

import torch


def resnet18() -> tuple[torch.nn.Module, tuple]:
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=10)
    return model.to(torch.bfloat16), (torch.randn(2, 3, 64, 64).to(torch.bfloat16),)
