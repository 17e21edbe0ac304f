"""What this run happens on: the default device, package versions, the device's name and vector ISA."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

import torch


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def _numfuzz_version() -> str:
    """The installed numfuzz's version, read from its metadata (importing the package root here would import upward)."""
    try:
        return version("numfuzz")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def versions() -> dict[str, str]:
    try:
        import thunder

        thunder_version = thunder.__version__
    except Exception:
        thunder_version = "absent"
    return {"numfuzz": _numfuzz_version(), "torch": torch.__version__, "thunder": thunder_version, "python": platform.python_version()}


def vector_isa(device: str) -> str:
    """What the compilers generate code for: the CPU's vector ISA as torch picks it (AVX512, AVX2, ...), or the GPU's architecture.

    Inductor's CPU code (vector width, scalar tail) depends on it, so a finding can reproduce on
    one machine and not on another of the same kind.
    """
    if device.startswith("cuda") and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(torch.device(device))
        return f"sm_{major}{minor}"
    try:
        return str(torch.backends.cpu.get_cpu_capability())
    except Exception:  # older or unusual builds: say so rather than fail a case
        return "unknown"


def provenance(device: str) -> dict[str, str]:
    """Versions, device and vector ISA, as a case records them."""
    return {**versions(), "device": device, "isa": vector_isa(device)}


def device_name(device: str) -> str:
    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return f"{device} ({platform.machine()})"
