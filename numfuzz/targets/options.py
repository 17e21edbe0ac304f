"""Target options written after the family's argument: `k=v,k2=v2`."""

from __future__ import annotations

from typing import Any

from numfuzz.targets.protocol import TargetError


def parse_options(text: str) -> dict[str, Any]:
    """`k=v,k2=v2` with v as bool, int, float or str."""
    options: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise TargetError(f"bad option {item!r}: expected key=value")
        low = raw.lower()
        value: Any = raw
        if low in ("true", "false", "1", "0", "yes", "no"):
            value = low in ("true", "1", "yes")
        else:
            for cast in (int, float):
                try:
                    value = cast(raw)
                    break
                except ValueError:
                    continue
        options[key] = value
    return options


# The widest CPU vector register Inductor targets (AVX-512): a finding in its vectorised loop keeps at
# least this many bytes of output, so that it reproduces on machines with narrower vectors too.
CPU_VECTOR_BYTES = 64


def vector_elements(dtype: str, device: str) -> int:
    """Elements in one full CPU vector of `dtype` (an integer or bool one too); 1 off the CPU."""
    from numfuzz.program.dtypes import storage_bits

    return CPU_VECTOR_BYTES * 8 // storage_bits(dtype) if device.startswith("cpu") else 1


def reset_dynamo() -> None:
    import torch

    torch._dynamo.reset()
