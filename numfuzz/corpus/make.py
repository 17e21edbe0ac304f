"""From a case's address and a run specification to a case: graph, recipes and exactly rounded input values."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import torch

from numfuzz.address import SAMPLES, SECOND_SAMPLES, UPSTREAM_GRADIENTS, CaseAddress
from numfuzz.corpus.case import Case, SecondSize
from numfuzz.environment import provenance as environment_provenance
from numfuzz.program.autocast import with_region
from numfuzz.program.fine import is_fine
from numfuzz.program.generator import GenConfig, generate_with_origin
from numfuzz.program.samples import draw_samples
from numfuzz.program.ir import Graph, canonical_json
from numfuzz.program.mutate import mutate
from numfuzz.program.ops import infer_specs
from numfuzz.program.valid_inputs import into_range
from numfuzz.program.values import Recipe, encode, round_to
from numfuzz.run_spec import RunMix, RunSpec
from numfuzz.targets.run_draw import draw_run

MIRROR_EVERY = 4  # with seams on, every fourth sample repeats values across a seam
# Samples at the second size of a dynamic compile: its inputs are drawn by the same recipes. The
# case stores them, so fewer than the first size's keep case files small; 16 is the --samples at
# which the samples sweep (scripts/bench) found every planted bug that 64 found.
SECOND_SIZE_SAMPLES = 16


def make_case(address: CaseAddress | int, run: RunSpec, programs: GenConfig | None = None, mix: RunMix | None = None) -> Case:
    """The case at `address` (a bare seed: a case of its own) under `run`: `run.samples` samples, seam widths of `run`'s
    device; `programs` is the space drawn from (default: `numfuzz fuzz`'s, `GenConfig.default()`).

    A guided child's lineage mutates its root's graph in turn (`program.mutate`); its samples and
    compile draws are its own, and its provenance records the chain. With a `mix` the run is drawn
    (`targets.run_draw`); the graph and samples are the same as without, so a static case keeps its name."""
    address = address if isinstance(address, CaseAddress) else CaseAddress(address)
    programs = programs or GenConfig.default()
    graph, recipes, origin = generate_with_origin(address.seed, programs, widths=run.device_kind)
    mutations = []
    fine = is_fine(graph)
    for rng in address.mutation_streams():
        mutated, name = mutate(graph, rng, run.device_kind, frozenset(programs.ops))
        if fine and not is_fine(mutated):
            continue  # a float64 program stays one the fine reference evaluates: a float64 reference would be eager itself
        graph = mutated
        mutations.append(name)
    run, graph2 = draw_run(address, run, graph, mix)
    if run.grad and fine:  # its gradients have no reference finer than float64
        run = run.with_changes(grad=False)
    seams = programs.seams
    drawn = draw_samples(graph, recipes, address.seed_of(SAMPLES), run.samples, mirror_every=MIRROR_EVERY if seams else 0)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    if address.lineage:  # a mutated shape can narrow an index's range
        tensors = [fitted for row in tensors if (fitted := into_range(graph, row)) is not None] or tensors
    provenance = {"seed": address.seed, **environment_provenance(run.device or "cpu"), "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if address.lineage:
        provenance["lineage"] = {"seeds": list(address.lineage), "mutations": mutations}
    provenance.update(origin)  # a window of a real model's graph: which model and nodes (`program.zoo`)
    second = second_size(graph2, recipes, address, run.samples) if graph2 is not None else None
    grads = upstream_gradients(graph, address.seed_of(UPSTREAM_GRADIENTS), len(tensors)) if run.grad else None
    return Case.from_tensors(graph, tensors, run, grads, recipes=recipes, provenance=provenance, second=second)


def second_size(graph2: Graph, recipes: list[Recipe], address: CaseAddress, samples: int) -> SecondSize | None:
    """The samples at the second size, drawn by the same recipes; None where an index cannot be taken into range there."""
    rows = draw_samples(graph2, recipes, address.seed_of(SECOND_SAMPLES), min(samples, SECOND_SIZE_SAMPLES))
    # an index recipe's bound is the first size's: take each index into the range of the ops at the second size
    fitted = [into_range(graph2, [round_to(v, spec) for v, spec in zip(row, graph2.inputs)]) for row in rows]
    if any(row is None for row in fitted):
        return None
    return SecondSize(tuple(s.shape for s in graph2.inputs), tuple(tuple(encode(t) for t in row) for row in fitted))


def upstream_gradients(graph: Graph, seed: int, samples: int) -> list[list[torch.Tensor]]:
    """One upstream gradient per output and sample, drawn from `seed` (`CaseAddress.seed_of(UPSTREAM_GRADIENTS)`):
    standard normal, rounded to the output's dtype (as a loss's would be)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    specs = infer_specs(graph)
    return [[round_to(rng.normal(0.0, 1.0, specs[o].numel), specs[o]) for o in graph.outputs] for _ in range(samples)]


def with_gradients(case: Case) -> Case:
    """The case with gradients judged too: upstream gradients drawn for it (seeded by its program and inputs, so every target gets the same), unless it has them."""
    if case.run.grad:
        return case
    address = CaseAddress.of_content(canonical_json({"graph": case.graph.to_json(), "samples": case.samples}))
    grads = upstream_gradients(case.graph, address.seed_of(UPSTREAM_GRADIENTS), len(case.samples))
    return Case.from_tensors(case.graph, case.tensors(), case.run.with_changes(grad=True), grads, recipes=case.recipes, provenance=case.provenance, second=case.second)


def in_autocast_region(case: Case, dtype: str) -> Case:
    """The case with every node in a torch.autocast region of `dtype` (`program.autocast`), as a training step under
    autocast runs a block; a GraphError where a dtype the region gives does not fit a later op. Gradients, where
    the case had them, are drawn again for the outputs' new dtypes."""
    graph = with_region(case.graph, range(len(case.graph.nodes)), dtype)
    infer_specs(graph)
    plain = case.run.with_changes(grad=False)
    moved = Case.from_tensors(graph, case.tensors(), plain, None, recipes=case.recipes, provenance=case.provenance, second=case.second)
    return with_gradients(moved) if case.run.grad else moved
