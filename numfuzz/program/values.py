"""Input values: drawing them from recipes, and storing them exactly as bit patterns."""

from __future__ import annotations

import base64
import lzma
from dataclasses import dataclass

import numpy as np
import torch

from numfuzz.program.dtypes import FORMATS, INT_DTYPES, INT_RANGES, storage_bits, torch_name
from numfuzz.program.ir import TensorSpec
from numfuzz.program.layout import first_slice

RECIPE_KINDS = ("normal", "uniform", "logmag", "tiny", "large")
_LARGE = {"bf16": 1e4, "fp16": 1e3, "fp32": 1e4, "fp64": 1e4}


class BitsError(ValueError):
    """Stored input bits that do not fit their spec."""


@dataclass(frozen=True)
class Recipe:
    """How one input's values are drawn; a case stores the drawn bits, this is provenance."""

    kind: str
    domain: str = "any"  # a key of `op_spec.DOMAINS`
    bound: int | None = None  # an index input's values are drawn in [0, bound)
    # Scalars the input is compared against (a clamp's bounds, a threshold): some values are placed at
    # each, rounded to the input's dtype, and one ULP either side (`on_lines`).
    lines: tuple[float, ...] = ()

    def to_json(self) -> dict:
        data = {"kind": self.kind, "domain": self.domain, **({"bound": self.bound} if self.bound is not None else {})}
        return {**data, "lines": list(self.lines)} if self.lines else data

    @staticmethod
    def from_json(data: dict) -> Recipe:
        bound = data.get("bound")
        lines = tuple(float(v) for v in data.get("lines", ()))
        return Recipe(str(data["kind"]), str(data.get("domain", "any")), None if bound is None else int(bound), lines)


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, torch_name(name))


INTEGER = "integer"  # the recipe of an integer or bool value of a program (`draw_integers`)
# ... the domain of one that holds its signed dtype's lowest value too, where dividing by -1 overflows: eager's kernels trap
# there before torch 2.15 (SIGFPE, the case then invalid: `targets.boundary`) and wrap from it, as compiled code must
# (pytorch#184406); drawn for this share of integer inputs only, as each trap costs eager's worker a restart
LOWEST = "lowest"
LOWEST_SHARE = 0.05
SIGNED = ("i8", "i16", "i32", "i64")
# Integers as float64 draws hold them exactly up to 2**53: an int64 value is drawn within this
INT64_DRAWN = 2**62


def draw_integers(dtype: str, n: int, rng: np.random.Generator, lowest: bool = False) -> np.ndarray:
    """Integer values of `dtype`: mostly small (where sums and products stay exact), some spread over the dtype's range,
    some at its edges (where arithmetic wraps): an integer program's overflow is eager's to define, and the target's to keep.
    The signed dtype's lowest value is an edge only with `lowest` (`LOWEST`)."""
    low, high = INT_RANGES[dtype]
    low, high = max(low if low == 0 or lowest else low + 1, -INT64_DRAWN - lowest * INT64_DRAWN), min(high, INT64_DRAWN)
    small = np.clip(np.floor(rng.uniform(-16.0, 17.0, n)), low, high)
    spread = np.floor(rng.uniform(float(max(low, -INT64_DRAWN)), float(high), n))
    edges = np.array([low, low + 2, -1, 0, 1, high - 1, high], dtype=np.float64).clip(low, high)
    edge = edges[np.minimum((rng.random(n) * edges.size).astype(np.int64), edges.size - 1)]
    pick = rng.random(n)
    return np.where(pick < 0.6, small, np.where(pick < 0.8, spread, edge))


def draw_values(recipe: Recipe, spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    n = spec.numel
    if recipe.kind == INTEGER:
        return draw_integers(spec.dtype, n, rng, recipe.domain == LOWEST).reshape(spec.shape)
    if recipe.domain == "index":  # class targets and indices: uniform over [0, bound)
        bound = max(int(recipe.bound or 1), 1)
        return np.minimum(np.floor(rng.uniform(0.0, float(bound), n)), bound - 1).reshape(spec.shape)
    if recipe.kind == "normal":
        x = rng.normal(0.0, float(rng.choice([0.1, 1.0, 10.0])), n)
    elif recipe.kind == "uniform":
        x = rng.uniform(-1.0, 1.0, n) * float(rng.choice([1.0, 4.0]))
    elif recipe.kind == "logmag":
        x = np.where(rng.random(n) < 0.5, -1.0, 1.0) * 10.0 ** rng.uniform(-4.0, 4.0, n)
    elif recipe.kind == "tiny":
        x = rng.normal(0.0, 1e-3, n)
    elif recipe.kind == "large":
        x = rng.normal(0.0, 1.0, n) * _LARGE[spec.dtype]
    else:
        raise ValueError(f"unknown recipe kind {recipe.kind!r}")
    x = in_domain(x, recipe.domain)
    return (on_lines(x, recipe.lines, spec.dtype, rng, recipe.domain) if recipe.lines else x).reshape(spec.shape)


LINE_SHARE = 0.25  # of an input's elements, placed on the lines it is compared against


def line_points(lines: tuple[float, ...], dtype: str) -> np.ndarray:
    """Each line rounded to `dtype`, and its neighbours one ULP below and above (the finite ones)."""
    near = torch.tensor(lines, dtype=torch.float64).to(torch_dtype(dtype))
    bits = near.view(bit_view(dtype))
    points = torch.cat([near, (bits - 1).view(near.dtype), (bits + 1).view(near.dtype)]).to(torch.float64)
    points = points[torch.isfinite(points)]
    return np.unique(points.numpy())


def on_lines(x: np.ndarray, lines: tuple[float, ...], dtype: str, rng: np.random.Generator, domain: str = "any") -> np.ndarray:
    """`x` with a share of its elements at the lines' points (`line_points`) inside `domain`: where a comparison flips.
    (An input compared against -2 and read by a log keeps its values positive.)"""
    points = line_points(lines, dtype) if dtype in FORMATS else np.empty(0)
    points = points[inside(points, domain)]
    if not points.size or not x.size:
        return x
    at = np.asarray(rng.random(x.size)) < LINE_SHARE
    picks = np.minimum((np.asarray(rng.random(x.size)) * points.size).astype(np.int64), points.size - 1)  # draws any generator has
    return np.where(at, points[picks], x)


def inside(x: np.ndarray, domain: str) -> np.ndarray:
    """Which values lie in `domain` (`op_spec.DOMAINS`)."""
    tests = {
        "positive": lambda v: v > 0,
        "nonzero": lambda v: np.abs(v) >= 1e-3,
        "unit": lambda v: np.abs(v) < 1,
        "probability": lambda v: (v > 0) & (v < 1),
        "above_one": lambda v: v > 1,
        "sign": lambda v: np.abs(v) == 1,
    }
    return tests[domain](x) if domain in tests else np.ones(x.shape, dtype=bool)


def in_domain(x: np.ndarray, domain: str) -> np.ndarray:
    """Drawn values moved into an op's domain, keeping their spread: a recipe's large values land near the domain's edges."""
    if domain == "any":
        return x
    if domain == "positive":
        return np.abs(x) + 1e-3
    if domain == "nonzero":
        return np.where(x < 0, x - 1e-3, x + 1e-3)
    if domain == "unit":
        return x / (1.0 + np.abs(x))
    if domain == "probability":
        return 0.5 + 0.5 * x / (1.0 + np.abs(x))
    if domain == "above_one":
        return 1.0 + np.abs(x) + 1e-3
    if domain == "sign":
        return np.where(x < 0, -1.0, 1.0)
    if domain == "index":  # drawn by draw_values from the recipe's bound
        return x
    raise ValueError(f"unknown domain {domain!r}")


def round_to(values: np.ndarray, spec: TensorSpec) -> torch.Tensor:
    """Round float64 values to the spec's dtype with torch's own conversion.

    For bf16/fp16 torch goes through fp32 (two roundings); that is fine for drawing inputs,
    whose bits are stored as drawn. The reference's casts round once (`lowering.ROUND_TO_SOURCE`).
    """
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float64)).reshape(spec.shape).to(torch_dtype(spec.dtype))


# An input's bits past this many bytes are stored packed (xz) where that halves them: a report's own large
# input (pytorch#145401's 43M elements) is a pattern repeated, which a case file can then hold in kilobytes.
PACK_FROM = 1 << 20
PACKED = "xz:"
# Drawn values hardly pack (random bits: xz keeps ~90% of them), and xz takes 4 s over 2^21 fp32 values, which every
# model-sized case paid while it was made; xz over the first 64 KiB takes 30 ms and predicts the whole's ratio.
PACK_PROBE = 1 << 16


def encode(tensor: torch.Tensor) -> str:
    bits = tensor.detach().cpu().contiguous().view(bit_view(dtype_name(tensor.dtype)))
    raw = bits.numpy().astype(bits.numpy().dtype.newbyteorder("<")).tobytes()
    if len(raw) > PACK_FROM and 2 * len(lzma.compress(raw[:PACK_PROBE])) < PACK_PROBE:
        packed = lzma.compress(raw)
        if 2 * len(packed) < len(raw):
            return PACKED + base64.b64encode(packed).decode()
    return base64.b64encode(raw).decode()


def decode(text: str, spec: TensorSpec) -> torch.Tensor:
    np_type = f"<i{storage_bits(spec.dtype) // 8}"
    itemsize = np.dtype(np_type).itemsize
    packed = text.startswith(PACKED)
    try:
        raw = base64.b64decode(text.removeprefix(PACKED).encode(), validate=True)
        # unpacked no further than one byte past what the spec holds: a bad file is refused, not unpacked whole
        raw = lzma.LZMADecompressor().decompress(raw, spec.numel * itemsize + 1) if packed else raw
    except (ValueError, TypeError, lzma.LZMAError) as exc:
        raise BitsError(f"input bits are not valid {'packed ' if packed else ''}base64: {exc}") from None
    if len(raw) != spec.numel * itemsize:
        raise BitsError(f"input holds {len(raw)} bytes, its spec {spec.dtype}{list(spec.shape)} needs {spec.numel * itemsize}")
    arr = np.frombuffer(raw, dtype=np_type)
    return torch.from_numpy(arr.astype(np_type[1:]).copy()).view(torch_dtype(spec.dtype)).reshape(spec.shape)


def dtype_name(dtype: torch.dtype) -> str:
    """numfuzz's short name of a torch dtype."""
    for name, torch_dtype_name in [(n, f.torch_name) for n, f in FORMATS.items()] + list(INT_DTYPES.items()):
        if getattr(torch, torch_dtype_name) == dtype:
            return name
    raise ValueError(f"unsupported dtype {dtype}")


def bit_view(name: str) -> torch.dtype:
    """The integer dtype that holds a value's bits."""
    return getattr(torch, f"int{storage_bits(name)}")


def conformed(tensor: torch.Tensor, spec: TensorSpec) -> torch.Tensor:
    """The values an input's layout can hold: along each dim it expands with stride 0, its first slice repeated."""
    if spec.layout is None or not spec.layout.expand:
        return tensor
    return tensor[first_slice(tensor.dim(), spec.layout.expand)].expand(tensor.shape).contiguous()


def fits_layout(tensor: torch.Tensor, spec: TensorSpec) -> bool:
    """Whether the values are what the layout can hold (equal along every expanded dim, bit for bit)."""
    if spec.layout is None or not spec.layout.expand:
        return True
    bits = bit_view(spec.dtype)
    return torch.equal(conformed(tensor, spec).view(bits), tensor.contiguous().view(bits))


def round_significand(x: np.ndarray | float, bits: int) -> np.ndarray:
    """Round float64 values to `bits` significant bits, to nearest even (exponent range aside)."""
    mant, exp = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.round(mant * 2.0**bits) / 2.0**bits, exp)
