"""From a seed to a runnable case, and from a case to an outcome on a target."""

from __future__ import annotations

import platform
from datetime import datetime, timezone
from typing import Sequence

import torch

import numfuzz
from numfuzz.corpus import Case
from numfuzz.execute import Outcome, evaluate
from numfuzz.generator import GenConfig, draw_samples, generate
from numfuzz.targets import Target
from numfuzz.values import round_to


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


def make_case(
    seed: int, target: str, samples: int, config: GenConfig | None = None, device: str = "cpu", imports: Sequence[str] = ()
) -> Case:
    """The case for `seed`: graph, recipes and exactly rounded input values.

    `imports` are the --import modules/files the target needs; repro scripts import them too.
    """
    graph, recipes = generate(seed, config)
    drawn = draw_samples(graph, recipes, seed, samples)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    provenance = {"seed": seed, **versions(), "device": device, "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if imports:
        provenance["imports"] = list(imports)
    return Case.from_tensors(graph, tensors, target, recipes=recipes, provenance=provenance)


def run_case(case: Case, target: Target, device: str, want_trace: bool = False) -> Outcome:
    return evaluate(case.graph, case.tensors(), target, device, want_trace)
