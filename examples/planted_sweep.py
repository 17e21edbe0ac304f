"""Two small architectures with a `positions` parameter (for `numfuzz models`' sequence lengths), and a planted backend whose
bug shows in one architecture's one mode only: it drops fp32 upcasts when it compiles a forward without gradients, so
RMSNorm normalises in bf16 in inference and never in a training step, and a LayerNorm block (no explicit upcast) never.

    numfuzz models examples/planted_sweep.py:rms_block examples/planted_sweep.py:layernorm_block \\
        --target eager --target inference_drops_upcast --precision bf16 --positions 16 --import examples/planted_sweep.py --out runs/planted
"""

from __future__ import annotations

import torch

from numfuzz.check import CallableTarget
from numfuzz.targets import register

SIZE = 32


class RMSNorm(torch.nn.Module):
    def __init__(self, size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        h = x.to(torch.float32)  # as Llama's RMSNorm: normalise in fp32, cast back
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)


class Block(torch.nn.Module):
    """A norm, then a projection: the norm is RMSNorm (Llama's) or LayerNorm (GPT-2's)."""

    def __init__(self, norm: torch.nn.Module):
        super().__init__()
        self.norm = norm
        self.proj = torch.nn.Linear(SIZE, SIZE, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(self.norm(x))


def _inputs(positions: int) -> tuple[torch.Tensor]:
    return (torch.randn(2, positions, SIZE, generator=torch.Generator().manual_seed(1)) * 3,)


def rms_block(positions: int = 16) -> tuple[torch.nn.Module, tuple]:
    torch.manual_seed(0)
    return Block(RMSNorm(SIZE)), _inputs(positions)


def layernorm_block(positions: int = 16) -> tuple[torch.nn.Module, tuple]:
    torch.manual_seed(0)
    return Block(torch.nn.LayerNorm(SIZE)), _inputs(positions)


def _drop_upcasts_in_inference(gm: torch.fx.GraphModule, example_inputs: list) -> torch.fx.GraphModule:
    """The planted bug: compiling with gradients off, every `.to(torch.float32)` of the captured graph is removed."""
    if torch.is_grad_enabled():
        return gm
    for node in list(gm.graph.nodes):
        if node.op == "call_method" and node.target == "to" and torch.float32 in (*node.args[1:], node.kwargs.get("dtype")):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


def compile_inference_drops_upcast(fn):
    return torch.compile(fn, backend=_drop_upcasts_in_inference)


register(
    "inference_drops_upcast",
    lambda arg: CallableTarget(compile_inference_drops_upcast, "inference_drops_upcast", "planted_sweep.compile_inference_drops_upcast(fn)"),
    "torch.compile dropping fp32 upcasts when it compiles without gradients (a planted bug)",
)
