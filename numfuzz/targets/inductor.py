"""torch.compile with Inductor, options after the colon: `inductor:emulate_precision_casts=1`."""

from __future__ import annotations

from typing import Callable

from numfuzz.targets.options import parse_options, reset_dynamo


class Inductor:
    # Cases a campaign compiles together (numfuzz.campaign.batch). On torch 2.9.1, 2 busy CPU cores,
    # 16 generated graphs took 34.6 s one compile each and 10.0 s as two compiles of 8.
    batch_default = 8

    def __init__(self, arg: str | None):
        self.options = parse_options(arg or "")
        self.name = "inductor" + (f":{arg}" if arg else "")

    def available(self) -> tuple[bool, str]:
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
