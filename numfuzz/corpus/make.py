"""From a seed to a runnable case, and from a case to an outcome on a target."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from numfuzz.corpus.case import Case
from numfuzz.environment import provenance as environment_provenance
from numfuzz.judge.analysis import analyse
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.program.generator import GenConfig, draw_samples, generate
from numfuzz.program.values import round_to
from numfuzz.targets import Target


def make_case(seed: int, target: str, samples: int, config: GenConfig | None = None, device: str = "cpu", imports: Sequence[str] = ()) -> Case:
    """The case for `seed`: graph, recipes and exactly rounded input values.

    `imports` are the --import modules/files the target needs; repro scripts import them too.
    """
    graph, recipes = generate(seed, config)
    drawn = draw_samples(graph, recipes, seed, samples)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    provenance = {"seed": seed, **environment_provenance(device), "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if imports:
        provenance["imports"] = list(imports)
    return Case.from_tensors(graph, tensors, target, recipes=recipes, provenance=provenance)


def run_case(case: Case, target: Target, device: str, want_trace: bool = False) -> Outcome:
    """The case's outcome on `target`; an accuracy finding comes with its analysis (culprit and cause)."""
    samples = case.tensors()
    return analyse(case.graph, samples, target, device, evaluate(case.graph, samples, target, device, want_trace))
