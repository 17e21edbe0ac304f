"""From a seed and a run specification to a case: graph, recipes and exactly rounded input values."""

from __future__ import annotations

from datetime import datetime, timezone

from numfuzz.corpus.case import Case
from numfuzz.environment import provenance as environment_provenance
from numfuzz.program.generator import GenConfig, draw_samples, generate
from numfuzz.program.values import round_to
from numfuzz.run_spec import RunSpec

MIRROR_EVERY = 4  # with seams on, every fourth sample repeats values across a seam


def make_case(seed: int, run: RunSpec, programs: GenConfig | None = None) -> Case:
    """The case for `seed` under `run`: `run.samples` samples, seam widths of `run`'s device; `programs` is the space drawn from."""
    graph, recipes = generate(seed, programs, widths=run.device_kind)
    seams = programs is not None and programs.seams
    drawn = draw_samples(graph, recipes, seed, run.samples, mirror_every=MIRROR_EVERY if seams else 0)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    provenance = {"seed": seed, **environment_provenance(run.device or "cpu"), "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    return Case.from_tensors(graph, tensors, run, recipes=recipes, provenance=provenance)
