"""Blocks of real models as programs to start from: the patterns compilers' fusion passes look for.

A share of graphs (`GenConfig.blocks`) starts from one template: RMSNorm (torch's, or written out
as Qwen2 writes it: up to fp32, the mean of squares, rsqrt, back down), LayerNorm with a residual,
the SwiGLU MLP (the seed report's Qwen2 MLP), RoPE (rotate-half), attention (softmax of scaled
scores, or sdpa), softmax cross-entropy over a vocabulary, a linear with bias and activation, and a
video decoder's 3-d upsampling.
Each draws its sizes (hidden sizes of 16 to 2048, with odd ones such as Qwen2-0.5B's 896), its
dtype and its casts; then the block is mutated: ops swapped within their group (`OpSpec.swap_group`), and
the generator grows random ops on its value as on any other. With `--grad` a block and its loss
is one training step. Torch-free.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from numfuzz.program.ir import GraphError, Node
from numfuzz.program.layout import Layout
from numfuzz.program.ops import OPS

HIDDEN = (16, 32, 64, 96, 128, 256, 512, 896, 1024, 2048)
ROWS = (1, 2, 3, 4, 8, 16, 17, 32)
SWAP_CHANCE = 0.15
Builder = Any  # numfuzz.program.generator's builder: rng, specs, new_input, new_index_input, add_node


def _node(b: Builder, op: str, *args: int, **attrs: Any) -> int:
    return b.add_node(Node.make(op, list(args), **attrs))


def _eps(b: Builder) -> float:
    return b.rng.choice((1e-6, 1e-5, 1e-12))


def _activation(b: Builder, value: int) -> int:
    op = b.rng.choice(("silu", "gelu", "relu", "gelu_tanh"))
    return _node(b, "gelu", value, approximate="tanh") if op == "gelu_tanh" else _node(b, op, value, **({"approximate": "none"} if op == "gelu" else {}))


def rms_norm(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    x = b.new_input((*rows, hidden), dtype)
    w = b.new_input((hidden,), dtype)
    if b.rng.random() < 0.4:
        return _node(b, "mul", _node(b, "rms_norm", x, eps=_eps(b)), w)
    up = _node(b, "cast", x, dtype="fp32") if dtype != "fp32" and b.rng.random() < 0.8 else x  # Qwen2: in fp32
    r = _node(b, "rsqrt", _node(b, "add_scalar", _node(b, "mean", _node(b, "square", up), dim=-1, keepdim=True), value=_eps(b)))
    normed = _node(b, "mul", up, r)
    down = _node(b, "cast", normed, dtype=dtype) if up != x else normed
    return _node(b, "mul", w, down)


def layer_norm_residual(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    x, residual = b.new_input((*rows, hidden), dtype), b.new_input((*rows, hidden), dtype)
    h = _node(b, "add", x, residual)
    normed = _node(b, "layer_norm", h, eps=_eps(b))
    return _node(b, "add", _node(b, "mul", normed, b.new_input((hidden,), dtype)), b.new_input((hidden,), dtype))


def swiglu_mlp(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    inner = b.rng.choice((2 * hidden, 4 * hidden, (8 * hidden // 3 + 7) // 8 * 8, hidden + 3))
    x = b.new_input((*rows, hidden), dtype)
    gate = _node(b, "linear", x, b.new_input((inner, hidden), dtype))
    up = _node(b, "linear", x, b.new_input((inner, hidden), dtype))
    return _node(b, "linear", _node(b, "mul", _node(b, "silu", gate), up), b.new_input((hidden, inner), dtype))


def rope(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    head = hidden - hidden % 2 or 2
    x = b.new_input((*rows, head), dtype)
    cos, sin = b.new_input((rows[-1], head), dtype, "unit"), b.new_input((rows[-1], head), dtype, "unit")
    first, second = (_node(b, "chunk", x, chunks=2, dim=len(rows), index=i) for i in (0, 1))
    rotated = _node(b, "cat", _node(b, "neg", second), first, dim=-1)
    return _node(b, "add", _node(b, "mul", x, cos), _node(b, "mul", rotated, sin))


def attention(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    seq, head = rows[-1], min(hidden, b.rng.choice((16, 32, 64, 128)))
    shape = (*(rows[:-1] or (1,)), seq, head)
    q, k, v = (b.new_input(shape, dtype) for _ in range(3))
    if b.rng.random() < 0.4:
        return _node(b, "sdpa", q, k, v, is_causal=b.rng.random() < 0.5)
    scores = _node(b, "mul_scalar", _node(b, "bmm", q, _node(b, "transpose", k, dim0=-2, dim1=-1)), value=head**-0.5)
    return _node(b, "bmm", _node(b, "softmax", scores, dim=-1), v)


def cross_entropy(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    vocab = b.rng.choice((1000, 4096, 9496, 32000)) + b.rng.choice((0, 1, 7))
    tokens = max(min(rows[0] * (rows[1] if len(rows) > 1 else 1), b.max_elements // vocab), 1)  # the logits within a value's budget
    width = min(hidden, 128)
    logits = _node(b, "linear", b.new_input((tokens, width), dtype), b.new_input((vocab, width), dtype))
    if dtype != "fp32" and b.rng.random() < 0.5:  # the upcast before the loss that training code writes
        logits = _node(b, "cast", logits, dtype="fp32")
    targets = b.new_index_input((tokens,), vocab)
    return _node(b, "cross_entropy_index", logits, targets, reduction="mean", label_smoothing=b.rng.choice((0.0, 0.0, 0.1)), ignore_index=-100)


def linear_activation(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    out = b.rng.choice((hidden, 2 * hidden, hidden + 1))
    x = b.new_input((*rows, hidden), dtype)
    return _activation(b, _node(b, "linear", x, b.new_input((out, hidden), dtype), b.new_input((out,), dtype)))


def upsample_3d(b: Builder, rows: tuple[int, ...], hidden: int, dtype: str) -> int:
    """A video or volume decoder's upsampling of (N, C, D, H, W), as often channels-last (memory format
    channels_last_3d) as not: the layout whose output strides a compiler must keep (pytorch#183771)."""
    rng = b.rng
    x = b.new_input((rng.choice((1, 2)), rng.choice((3, 4, 8, 16)), rng.choice((2, 3, 4)), rng.choice((4, 6, 8)), rng.choice((4, 6, 8))), dtype)
    if rng.random() < 0.5:
        b.inputs[-1] = b.inputs[-1].with_layout(Layout.make(5, perm=(0, 2, 3, 4, 1)))
    mode = rng.choice(("nearest", "trilinear"))
    align = None if mode == "nearest" else rng.random() < 0.5
    return _node(b, "interpolate", x, mode=mode, align_corners=align, size=None, scale_factor=rng.choice((2.0, (1.0, 2.0, 2.0))))


TEMPLATES: dict[str, Callable[[Builder, tuple[int, ...], int, str], int]] = {
    "rms_norm": rms_norm,
    "layer_norm_residual": layer_norm_residual,
    "swiglu_mlp": swiglu_mlp,
    "rope": rope,
    "attention": attention,
    "cross_entropy": cross_entropy,
    "linear_activation": linear_activation,
    "upsample_3d": upsample_3d,
}


def draw_block(b: Builder, dtype: str, name: str | None = None) -> str:
    """Build one template (`name`, or drawn) on the builder at drawn sizes; returns its name. A GraphError where it does not fit."""
    rng: random.Random = b.rng
    name = name or rng.choice(sorted(TEMPLATES))
    rows = (rng.choice(ROWS),) if rng.random() < 0.5 else (rng.choice((1, 2, 4)), rng.choice(ROWS))
    TEMPLATES[name](b, rows, rng.choice(HIDDEN), dtype)
    return name


def start_from_block(b: Builder, dtype: str) -> bool:
    """A drawn template as the graph's start; False (nothing built) where it does not fit or has an op outside the
    builder's ops (--ops restricts blocks too)."""
    saved = b.snapshot()
    try:
        draw_block(b, dtype)
        if all(node.op in b.config.ops for node in b.nodes):
            return True
    except GraphError:
        pass
    b.restore(saved)
    return False


def swap_ops(rng: random.Random, nodes: list[Node], check: Callable[[list[Node]], None], allowed: set[str] | None = None) -> list[Node]:
    """Each node swapped, by chance, for another op of its `OpSpec.swap_group`, keeping the attributes they share;
    `check` raises for an ill-typed result, and that swap is not made."""
    out = list(nodes)
    for j, node in enumerate(nodes):
        group = OPS[node.op].swap_group if node.op in OPS else ""
        if not group or rng.random() >= SWAP_CHANCE:
            continue
        others = [o for o, spec in OPS.items() if spec.swap_group == group and o != node.op and (allowed is None or o in allowed)]
        if not others:
            continue
        op = rng.choice(others)
        attrs = {k: v for k, v in node.attr_dict.items() if k in ("dim", "keepdim", "eps", "autocast")}
        attrs.update({"approximate": "none"} if op == "gelu" else {})
        candidate = out[:j] + [Node.make(op, node.args, **attrs)] + out[j + 1 :]
        try:
            check(candidate)
        except (GraphError, KeyError):
            continue
        out = candidate
    return out
