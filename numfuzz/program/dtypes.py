"""Everything numfuzz knows about its dtypes, as plain data and without torch.

Short names (`bf16`), precision and range, torch's promotion rule, the torch dtype each names
and the integer width its bits are stored in. Other modules derive what they need from here.
Integer and bool dtypes (`i64`, `bool`) are inputs (class targets, indices, masks) and, where an op
of the database makes one, values of a program: the oracle judges those exactly, against eager's.
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
# What an op takes: the program dtypes and float64, whose programs are drawn apart (GenConfig.fp64, numfuzz.program.fine).
FLOAT_DTYPES = (*PROGRAM_DTYPES, "fp64")
# Integer and bool values: short name -> torch's name; stored as little-endian integers of their width (`storage_bits`).
INT_DTYPES = {"i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "bool": "bool"}
_INT_BITS = {"i64": 64, "i32": 32, "i16": 16, "i8": 8, "u8": 8, "bool": 8}
# Each integer dtype's range (bool: 0 and 1): what its values are drawn within
INT_RANGES = {"i64": (-(2**63), 2**63 - 1), "i32": (-(2**31), 2**31 - 1), "i16": (-(2**15), 2**15 - 1), "i8": (-128, 127), "u8": (0, 255), "bool": (0, 1)}
# How generated source names each dtype: "torch.bfloat16".
TORCH_DTYPES = {name: f"torch.{fmt.torch_name}" for name, fmt in FORMATS.items()} | {n: f"torch.{t}" for n, t in INT_DTYPES.items()}


def check_dtype(name: str) -> FloatFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(FORMATS)}") from None


def is_integer(name: str) -> bool:
    return name in INT_DTYPES


def is_narrow(name: str) -> bool:
    """A float dtype narrower than fp32 (bf16, fp16): eager computes in fp32 and rounds to it."""
    return name in FORMATS and FORMATS[name].mantissa_bits < FORMATS["fp32"].mantissa_bits


def check_input_dtype(name: str) -> str:
    """`name` when an input may have it (a float or an integer dtype); a ValueError otherwise."""
    if name not in FORMATS and name not in INT_DTYPES:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join([*FORMATS, *INT_DTYPES])}")
    return name


def storage_bits(name: str) -> int:
    """The width of the little-endian integers a value of this dtype is stored as."""
    return _INT_BITS[name] if is_integer(name) else check_dtype(name).storage_bits


def torch_name(name: str) -> str:
    """The attribute of torch that is this dtype: "bfloat16", "int64"."""
    return INT_DTYPES[name] if is_integer(name) else check_dtype(name).torch_name


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
