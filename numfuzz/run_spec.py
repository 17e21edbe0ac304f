"""The run specification: how a case's program is compiled and run. One typed, immutable value, stored with the case.

A campaign makes one per target; a worker gets it whole; replay, minimise, repro and report
read nothing else to run a case again. A mode added later (gradients, dynamic shapes, a
compiler configuration) is a field here whose default means today's behaviour, so every case
file written before it still loads with the meaning it had. Torch-free, so the CLI can show it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

# Input samples per compiled graph, and the input search's share of them: the measurements
# behind both numbers are in numfuzz.campaign.defaults.
DEFAULT_SAMPLES = 64
DEFAULT_SEARCH = 0.125
MAX_SEARCH = 16.0
DEVICE_KINDS = ("cpu", "cuda")


class RunSpecError(ValueError):
    """A run specification that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class RunSpec:
    target: str  # the target spec, as `numfuzz targets` lists it (options included)
    device: str | None = None  # None: the machine's default (CUDA when present); case files before the run spec say nothing
    samples: int = DEFAULT_SAMPLES  # random input samples drawn per compiled graph (a stored case holds its own)
    search: float = 0.0  # extra runs spent searching for worse inputs, as a share of `samples` (numfuzz.search); 0: off
    imports: tuple[str, ...] = ()  # --import modules and files the target needs; repro scripts import them too
    grad: bool = False  # also judge the gradients of every input, for upstream gradients stored with the case

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not self.target:
            raise RunSpecError("a run needs a target spec")
        if self.device is not None and (not isinstance(self.device, str) or self.device.split(":")[0] not in DEVICE_KINDS):
            raise RunSpecError(f"unknown device {self.device!r}: expected cpu or cuda[:N]")
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise RunSpecError(f"samples must be a positive integer, not {self.samples!r}")
        if isinstance(self.search, bool) or not isinstance(self.search, (int, float)) or not 0.0 <= self.search <= MAX_SEARCH:
            raise RunSpecError(f"search is a share of the samples, between 0 and {MAX_SEARCH:g}, not {self.search!r}")
        if not all(isinstance(x, str) for x in self.imports):
            raise RunSpecError("imports must be module names or file paths")
        if not isinstance(self.grad, bool):
            raise RunSpecError(f"grad is true or false, not {self.grad!r}")
        object.__setattr__(self, "imports", tuple(self.imports))

    @property
    def device_kind(self) -> str:
        """cpu or cuda: whose vector widths and bounds apply."""
        return "cuda" if (self.device or "cpu").startswith("cuda") else "cpu"

    def with_changes(self, **changes: Any) -> RunSpec:
        return replace(self, **changes)

    def hashed(self) -> dict[str, Any]:
        """What a case's content hash covers besides the target: the fields that change what a run computes.

        The device, samples, search and imports say where and how thoroughly a case ran, not
        what its program is, so a case keeps its name wherever it is replayed; gradients are
        another program (the backward), so they count.
        """
        return {"grad": True} if self.grad else {}

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["imports"] = list(self.imports)
        return data

    @staticmethod
    def from_json(data: Any) -> RunSpec:
        if not isinstance(data, dict):
            raise RunSpecError("the run specification is not an object")
        unknown = set(data) - set(RunSpec.__dataclass_fields__)
        if unknown:
            raise RunSpecError(f"the run specification has unknown fields: {', '.join(sorted(unknown))}; a newer numfuzz wrote it")
        if "target" not in data:
            raise RunSpecError("the run specification names no target")
        try:
            return RunSpec(**{**data, "imports": tuple(data.get("imports", ()))})
        except TypeError as exc:
            raise RunSpecError(f"malformed run specification: {exc}") from None
