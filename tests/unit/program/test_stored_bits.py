"""An input's stored bits: plain base64, or packed (xz) where a large input is a repeated pattern."""

from __future__ import annotations

import base64
import lzma

import numpy as np
import pytest
import torch

from numfuzz.program import values as values_module
from numfuzz.program.ir import TensorSpec
from numfuzz.program.values import PACK_FROM, PACK_PROBE, PACKED, BitsError, decode, encode

LARGE = (1024, 1024)  # 2 MiB in fp16: past PACK_FROM


def test_a_large_repeated_input_is_stored_packed_and_loads_back_bit_for_bit():
    pattern = torch.from_numpy(np.random.RandomState(0).standard_normal(4096)).to(torch.float16)
    values = pattern.repeat(LARGE[0] * LARGE[1] // 4096).reshape(LARGE)
    text = encode(values)
    assert text.startswith(PACKED) and len(text) < values.numel() * 2 // 100
    assert torch.equal(decode(text, TensorSpec(LARGE, "fp16")).view(torch.int16), values.view(torch.int16))


def test_large_random_bits_stay_plain_and_small_ones_are_never_packed():
    noise = torch.from_numpy(np.random.RandomState(1).standard_normal(LARGE)).to(torch.float16)
    assert noise.numel() * 2 > PACK_FROM and not encode(noise).startswith(PACKED)
    assert not encode(torch.zeros(64)).startswith(PACKED)


def test_large_random_bits_are_judged_by_packing_a_probe_not_the_whole(monkeypatch):
    """xz over a model-sized input's random bits costs seconds and halves nothing: a probe of its start decides."""
    packed_lengths = []
    pack = lzma.compress
    monkeypatch.setattr(values_module.lzma, "compress", lambda data, *args, **kwargs: packed_lengths.append(len(data)) or pack(data, *args, **kwargs))
    noise = torch.from_numpy(np.random.RandomState(2).standard_normal(LARGE)).to(torch.float16)
    assert not encode(noise).startswith(PACKED) and packed_lengths == [PACK_PROBE]


@pytest.mark.parametrize("payload", [b"not xz at all", lzma.compress(bytes(4 * 65))])
def test_a_bad_or_oversized_packed_input_is_refused(payload):
    with pytest.raises(BitsError):
        decode(PACKED + base64.b64encode(payload).decode(), TensorSpec((64,), "fp32"))
