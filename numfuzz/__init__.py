"""numfuzz: differential fuzzing of PyTorch compilers against a float64 reference.

The public API for your own tests: `numfuzz.check(program, target)`, `numfuzz.check_model(model, inputs, target)`
and `numfuzz.strategies`.
Both import torch, so they load on first use: `import numfuzz` stays cheap for the CLI.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["check", "check_model", "strategies"]


def __getattr__(name: str) -> Any:
    if name == "check":
        from numfuzz.check import check

        globals()["check"] = check  # importing the module bound its name here; the function takes it over
        return check
    if name == "check_model":
        from numfuzz.model.check import check_model

        return check_model
    if name == "strategies":
        return importlib.import_module("numfuzz.strategies")
    raise AttributeError(f"module 'numfuzz' has no attribute {name!r}")
