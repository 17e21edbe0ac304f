"""Input values: drawing them from recipes, and storing them exactly as bit patterns."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np
import torch

from numfuzz.program.dtypes import FORMATS, check_dtype
from numfuzz.program.ir import TensorSpec

RECIPE_KINDS = ("normal", "uniform", "logmag", "tiny", "large")
_LARGE = {"bf16": 1e4, "fp16": 1e3, "fp32": 1e4, "fp64": 1e4}


class BitsError(ValueError):
    """Stored input bits that do not fit their spec."""


@dataclass(frozen=True)
class Recipe:
    """How one input's values are drawn; a case stores the drawn bits, this is provenance."""

    kind: str
    domain: str = "any"  # a key of `op_spec.DOMAINS`

    def to_json(self) -> dict:
        return {"kind": self.kind, "domain": self.domain}

    @staticmethod
    def from_json(data: dict) -> Recipe:
        return Recipe(str(data["kind"]), str(data.get("domain", "any")))


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, check_dtype(name).torch_name)


def draw_values(recipe: Recipe, spec: TensorSpec, rng: np.random.Generator) -> np.ndarray:
    n = spec.numel
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
    return in_domain(x, recipe.domain).reshape(spec.shape)


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
    raise ValueError(f"unknown domain {domain!r}")


def round_to(values: np.ndarray, spec: TensorSpec) -> torch.Tensor:
    """Round float64 values to the spec's dtype with torch's own conversion.

    For bf16/fp16 torch goes through fp32 (two roundings); that is fine for drawing inputs,
    whose bits are stored as drawn. The reference's casts round once (`lowering.ROUND_TO_SOURCE`).
    """
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float64)).reshape(spec.shape).to(torch_dtype(spec.dtype))


def encode(tensor: torch.Tensor) -> str:
    bits = tensor.detach().cpu().contiguous().view(bit_view(dtype_name(tensor.dtype)))
    return base64.b64encode(bits.numpy().astype(bits.numpy().dtype.newbyteorder("<")).tobytes()).decode()


def decode(text: str, spec: TensorSpec) -> torch.Tensor:
    np_type = f"<i{check_dtype(spec.dtype).storage_bits // 8}"
    try:
        raw = base64.b64decode(text.encode(), validate=True)
    except (ValueError, TypeError) as exc:
        raise BitsError(f"input bits are not valid base64: {exc}") from None
    itemsize = np.dtype(np_type).itemsize
    if len(raw) != spec.numel * itemsize:
        raise BitsError(f"input holds {len(raw)} bytes, its spec {spec.dtype}{list(spec.shape)} needs {spec.numel * itemsize}")
    arr = np.frombuffer(raw, dtype=np_type)
    return torch.from_numpy(arr.astype(np_type[1:]).copy()).view(torch_dtype(spec.dtype)).reshape(spec.shape)


def dtype_name(dtype: torch.dtype) -> str:
    """numfuzz's short name of a torch dtype."""
    for name, fmt in FORMATS.items():
        if getattr(torch, fmt.torch_name) == dtype:
            return name
    raise ValueError(f"unsupported dtype {dtype}")


def bit_view(name: str) -> torch.dtype:
    """The integer dtype that holds a value's bits."""
    return getattr(torch, f"int{check_dtype(name).storage_bits}")


def round_significand(x: np.ndarray | float, bits: int) -> np.ndarray:
    """Round float64 values to `bits` significant bits, to nearest even (exponent range aside)."""
    mant, exp = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.round(mant * 2.0**bits) / 2.0**bits, exp)
