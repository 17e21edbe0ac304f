"""A small decoder block in bf16 (RMSNorm, then a SwiGLU MLP, as Qwen2 and Llama write them), and a planted backend that
drops RMSNorm's upcast to fp32: `numfuzz model examples/planted_model.py:decoder_block --target drop_upcast --import
examples/planted_model.py` finds it and says where (`norm`); the same model on `inductor` is no finding."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from numfuzz.check import CallableTarget
from numfuzz.targets import register


class RMSNorm(torch.nn.Module):
    def __init__(self, size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        h = x.to(torch.float32)  # as Qwen2RMSNorm: normalise in fp32, cast back
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)


class MLP(torch.nn.Module):
    def __init__(self, size: int, hidden: int):
        super().__init__()
        self.gate_proj = torch.nn.Linear(size, hidden, bias=False)
        self.up_proj = torch.nn.Linear(size, hidden, bias=False)
        self.down_proj = torch.nn.Linear(hidden, size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderBlock(torch.nn.Module):
    def __init__(self, size: int = 64, hidden: int = 128):
        super().__init__()
        self.norm = RMSNorm(size)
        self.mlp = MLP(size, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.norm(x))


def decoder_block() -> tuple[torch.nn.Module, tuple]:
    """The contract of `numfuzz model FILE.py:FUNCTION`: the model and its example inputs."""
    torch.manual_seed(0)
    return DecoderBlock().to(torch.bfloat16), (torch.randn(2, 16, 64).to(torch.bfloat16) * 3,)


def _drop_upcasts(gm: torch.fx.GraphModule, example_inputs: list) -> torch.fx.GraphModule:
    """The planted bug: every `.to(torch.float32)` of the captured graph removed, so RMSNorm normalises in bf16."""
    for node in list(gm.graph.nodes):
        if node.op == "call_method" and node.target == "to" and torch.float32 in (*node.args[1:], node.kwargs.get("dtype")):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


def compile_drop_upcast(fn):
    return torch.compile(fn, backend=_drop_upcasts)


def _rough_rsqrt(gm: torch.fx.GraphModule, example_inputs: list) -> torch.fx.GraphModule:
    """The planted bug: rsqrt computed from its input rounded to bf16, as a fast approximation might (1 op to show it)."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.rsqrt:
            node.target = _rsqrt_of_bf16
    gm.recompile()
    return gm


def _rsqrt_of_bf16(x: torch.Tensor) -> torch.Tensor:
    return torch.rsqrt(x.to(torch.bfloat16)).to(x.dtype)


def compile_rough_rsqrt(fn):
    return torch.compile(fn, backend=_rough_rsqrt)


register(
    "drop_upcast",
    lambda arg: CallableTarget(compile_drop_upcast, "drop_upcast", "planted_model.compile_drop_upcast(fn)"),
    "torch.compile with fp32 upcasts dropped (a planted bug)",
)
register(
    "rough_rsqrt",
    lambda arg: CallableTarget(compile_rough_rsqrt, "rough_rsqrt", "planted_model.compile_rough_rsqrt(fn)"),
    "torch.compile with rsqrt computed in bf16 (a planted bug)",
)


class _SiluGradientHigh(torch.autograd.Function):
    """silu whose backward is 25% high: a planted gradient bug (the forward is eager's)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return F.silu(x)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad * (s * (1 + x * (1 - s))) * 1.25


class _SiluMode(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is F.silu:
            return _SiluGradientHigh.apply(args[0])
        return func(*args, **(kwargs or {}))


def _silu_gradient_high(fn):
    def run(*args):
        with _SiluMode():
            return fn(*args)

    return run


register("silu_grad_high", lambda arg: CallableTarget(_silu_gradient_high, "silu_grad_high"), "eager with silu's gradient 25% high (a planted bug)")
