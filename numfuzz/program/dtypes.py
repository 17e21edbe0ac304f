"""Everything numfuzz knows about its floating dtypes, as plain data and without torch.

Short names (`bf16`), precision and range, torch's promotion rule, the torch dtype each names
and the integer width its bits are stored in. Other modules derive what they need from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FloatFormat:
    name: str
    mantissa_bits: int  # explicit fraction bits
    min_exponent: int  # exponent of the smallest normal number
    max_value: float
    rank: int  # position in torch's promotion lattice
    storage_bits: int  # stored as little-endian integers of this width
    torch_name: str  # the attribute of torch: torch.bfloat16

    @property
    def eps(self) -> float:
        return 2.0**-self.mantissa_bits


FORMATS: dict[str, FloatFormat] = {
    "bf16": FloatFormat("bf16", 7, -126, 3.3895313892515355e38, 1, 16, "bfloat16"),
    "fp16": FloatFormat("fp16", 10, -14, 65504.0, 1, 16, "float16"),
    "fp32": FloatFormat("fp32", 23, -126, 3.4028234663852886e38, 2, 32, "float32"),
    "fp64": FloatFormat("fp64", 52, -1022, 1.7976931348623157e308, 3, 64, "float64"),
}

PROGRAM_DTYPES = ("bf16", "fp16", "fp32")
# How generated source names each dtype: "torch.bfloat16".
TORCH_DTYPES = {name: f"torch.{fmt.torch_name}" for name, fmt in FORMATS.items()}


def check_dtype(name: str) -> FloatFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(FORMATS)}") from None


def promote(*names: str) -> str:
    """torch's result dtype for float tensors of equal category (bf16 with fp16 gives fp32)."""
    best = names[0]
    for name in names[1:]:
        a, b = check_dtype(best), check_dtype(name)
        if a.name == b.name:
            continue
        if a.rank == b.rank:  # bf16 and fp16 meet at fp32
            best = "fp32"
        elif b.rank > a.rank:
            best = name
    return best
