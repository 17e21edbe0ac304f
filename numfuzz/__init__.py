"""numfuzz: differential fuzzing of PyTorch compilers against a float64 reference.

The public API for your own tests: `numfuzz.check(program, target)` and `numfuzz.strategies`.
Both import torch, so they load on first use: `import numfuzz` stays cheap for the CLI.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["check", "strategies"]


def __getattr__(name: str) -> Any:
    if name == "check":
        from numfuzz.check import check

        globals()["check"] = check  # importing the module bound its name here; the function takes it over
        return check
    if name == "strategies":
        return importlib.import_module("numfuzz.strategies")
    raise AttributeError(f"module 'numfuzz' has no attribute {name!r}")
