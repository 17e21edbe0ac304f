"""What this run happens on: the default device, package versions, the device's name."""

from __future__ import annotations

import platform

import torch

import numfuzz


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def versions() -> dict[str, str]:
    try:
        import thunder

        thunder_version = thunder.__version__
    except Exception:
        thunder_version = "absent"
    return {"numfuzz": numfuzz.__version__, "torch": torch.__version__, "thunder": thunder_version, "python": platform.python_version()}


def device_name(device: str) -> str:
    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return f"{device} ({platform.machine()})"
