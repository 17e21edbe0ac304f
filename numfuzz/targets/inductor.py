"""torch.compile with Inductor, options after the colon: `inductor:emulate_precision_casts=1`."""

from __future__ import annotations

from typing import Callable

from numfuzz.targets.options import parse_options, reset_dynamo, vector_elements


class Inductor:
    # Cases a campaign compiles together (numfuzz.runner.batch). On torch 2.9.1, 2 busy CPU cores,
    # 16 generated graphs took 34.6 s one compile each and 10.0 s as two compiles of 8.
    batch_default = 8

    def __init__(self, arg: str | None):
        self.options = parse_options(arg or "")
        self.name = "inductor" + (f":{arg}" if arg else "")

    def available(self) -> tuple[bool, str]:
        """Every option must exist in this torch's Inductor config (some exist only in some versions)."""
        import torch
        import torch._inductor.config as config

        for key in self.options:
            node = config
            for part in key.split("."):
                if not hasattr(node, part):
                    return False, f"torch {torch.__version__}'s Inductor has no option {key!r}"
                node = getattr(node, part)
        return True, ""

    def prepare(self, fn: Callable, device: str) -> Callable:
        import torch

        return torch.compile(fn, backend="inductor", dynamic=False, options=self.options or None)

    def final_trace(self, compiled: Callable) -> str | None:
        return None

    def reset(self) -> None:
        reset_dynamo()

    def repro_source(self) -> tuple[list[str], str]:
        return [], f'torch.compile(fn, backend="inductor", dynamic=False, options={self.options or None!r})'

    def repro_guard(self) -> str:
        return ""

    def min_elements(self, dtype: str, device: str) -> int:
        return vector_elements(dtype, device)
