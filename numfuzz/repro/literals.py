"""Tensors as source: exact literals that rebuild a case's values in a repro script."""

from __future__ import annotations

import math

import torch

from numfuzz.program.dtypes import TORCH_DTYPES
from numfuzz.program.values import dtype_name


def _float_literal(x: float) -> str:
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


def _nested(values: list | float) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return _float_literal(values)


def tensor_literal(t: torch.Tensor, device: str | None = None) -> str:
    """Source that rebuilds `t` exactly (NaN payloads aside): every value of t is exact in float64."""
    dtype = TORCH_DTYPES[dtype_name(t.dtype)]
    where = f", device={device!r}" if device else ""
    if not t.is_floating_point():  # indices: integers as written
        return f"torch.tensor({t.detach().cpu().tolist()!r}, dtype={dtype}{where})"
    values = t.detach().to("cpu", torch.float64)
    flat = values.reshape(-1)
    if flat.numel() > 1 and bool((flat.view(torch.int64) == flat[0].view(torch.int64)).all()):
        return f"torch.full({tuple(t.shape)!r}, {_float_literal(float(flat[0]))}, dtype={dtype}{where})"
    return f"torch.tensor({_nested(values.tolist())}, dtype={dtype}{where})"


def rows_source(rows: list[list]) -> str:
    return ",\n".join("    (" + "".join(tensor_literal(t) + ", " for t in row).rstrip(" ") + ")" for row in rows)
