"""From a seed and a run specification to a case: graph, recipes and exactly rounded input values."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import numpy as np
import torch

from numfuzz.corpus.case import Case
from numfuzz.environment import provenance as environment_provenance
from numfuzz.program.generator import GenConfig, draw_samples, generate
from numfuzz.program.ir import Graph, canonical_json
from numfuzz.program.ops import infer_specs
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
    grads = upstream_gradients(graph, seed, len(tensors)) if run.grad else None
    return Case.from_tensors(graph, tensors, run, grads, recipes=recipes, provenance=provenance)


def upstream_gradients(graph: Graph, seed: int, samples: int) -> list[list[torch.Tensor]]:
    """One upstream gradient per output and sample: standard normal, rounded to the output's dtype (as a loss's would be)."""
    rng = np.random.Generator(np.random.PCG64(seed ^ 0x6AAD))
    specs = infer_specs(graph)
    return [[round_to(rng.normal(0.0, 1.0, specs[o].numel), specs[o]) for o in graph.outputs] for _ in range(samples)]


def with_gradients(case: Case) -> Case:
    """The case with gradients judged too: upstream gradients drawn for it (seeded by its program and inputs, so every target gets the same), unless it has them."""
    if case.run.grad:
        return case
    seed = int(hashlib.sha256(canonical_json({"graph": case.graph.to_json(), "samples": case.samples}).encode()).hexdigest()[:15], 16)
    grads = upstream_gradients(case.graph, seed, len(case.samples))
    return Case.from_tensors(case.graph, case.tensors(), case.run.with_changes(grad=True), grads, recipes=case.recipes, provenance=case.provenance)
