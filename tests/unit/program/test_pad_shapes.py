"""F.pad's shape rule against torch: for every mode, over pads of every length and sign (a negative constant pad crops),
the rule gives eager's shape or refuses; it refuses only what eager refuses, and the negative pads of the other modes,
which it never draws. Drawn attributes are always legal, and the modes are drawn."""

import itertools
import random
from collections import Counter

import pytest
import torch
import torch.nn.functional as F

from numfuzz.program.ir import GraphError, Node, TensorSpec
from numfuzz.program.op_table.padding import MODES
from numfuzz.program.ops import OPS, infer_node

PADS = [(1, 1), (-1, 2), (2, 0), (3, 3), (0, 0, 1, 2), (1, 0, -1, 0), (2, 2, 2, 2), (1, 1, 1, 1, 1, 1), (0, 3, 2, 0, 1, -1), (1, 2, 3, 1, 0, 0, 1, 1)]


def _rule(shape: tuple[int, ...], mode: str, pad: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return infer_node(Node.make("pad", [0], pad=pad, mode=mode, value=None), [TensorSpec(shape, "fp32")]).shape
    except GraphError:
        return None


def _eager(shape: tuple[int, ...], mode: str, pad: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        out = tuple(F.pad(torch.zeros(shape), pad, mode=mode).shape)
    except (RuntimeError, NotImplementedError, ValueError):
        return None
    return out if 0 not in out else None  # an empty result is refused: nothing to judge


@pytest.mark.parametrize("mode", MODES)
def test_the_shape_rule_is_torchs(mode):
    agreed = refused = 0
    for rank in range(1, 5):
        for shape in itertools.product([1, 2, 3], repeat=rank):
            for pad in PADS:
                got, want = _rule(shape, mode, pad), _eager(shape, mode, pad)
                if got is None and want is not None:
                    assert mode != "constant" and min(pad) < 0, (shape, pad, want)  # the one refusal of a legal pad: never drawn
                    continue
                assert got == want, (shape, pad)
                agreed += got is not None
                refused += got is None
    assert agreed > 50 and refused > 50


def test_drawn_pads_run_in_eager_with_the_rules_shape():
    rng, modes = random.Random(0), Counter()
    for _ in range(400):
        spec = TensorSpec(tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 5))), "bf16")
        attrs = OPS["pad"].draw_attrs(rng, [spec])
        got = infer_node(Node.make("pad", [0], **attrs), [spec])
        out = F.pad(torch.zeros(spec.shape, dtype=torch.bfloat16), attrs["pad"], mode=attrs["mode"], value=attrs["value"])
        assert tuple(out.shape) == got.shape and out.dtype == torch.bfloat16
        modes[attrs["mode"]] += 1
        assert (attrs["value"] is None) == (attrs["mode"] != "constant")
    assert set(modes) == set(MODES) and min(modes.values()) > 40, modes


@pytest.mark.parametrize("mode", MODES)
def test_the_dtype_in_an_autocast_region_is_torchs(mode):
    """CPU autocast casts reflect's and replicate's input to fp32 (its fp32 list), constant's and circular's not at all."""
    for dtype, region in itertools.product(["bf16", "fp16", "fp32"], ["bf16", "fp16"]):
        x = torch.rand(2, 3, 4).to({"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype])
        with torch.autocast("cpu", dtype={"bf16": torch.bfloat16, "fp16": torch.float16}[region]):
            got = F.pad(x, (1, 2), mode=mode).dtype
        rule = infer_node(Node.make("pad", [0], pad=(1, 2), mode=mode, value=None, autocast=region), [TensorSpec((2, 3, 4), dtype)]).dtype
        assert {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[rule] == got, (dtype, region)
