"""From a seed and a run specification to a case: graph, recipes and exactly rounded input values."""

from __future__ import annotations

import functools
import hashlib
import random
from datetime import datetime, timezone

import numpy as np
import torch

from numfuzz.corpus.case import Case, SecondSize
from numfuzz.environment import provenance as environment_provenance
from numfuzz.program.autocast import with_region
from numfuzz.program.generator import GenConfig, draw_samples, generate_with_origin
from numfuzz.program.ir import Graph, canonical_json
from numfuzz.program.model_scale import is_large, samples_for
from numfuzz.program.mutate import mutate
from numfuzz.program.ops import infer_specs
from numfuzz.program.sizes import draw_second_size
from numfuzz.program.valid_inputs import into_range
from numfuzz.program.values import Recipe, encode, round_to
from numfuzz.run_spec import RunMix, RunSpec
from numfuzz.targets.compile_modes import configured
from numfuzz.targets.config_space import ConfigEntry, draw_options, entries_for
from numfuzz.targets.registry import family_of, resolve

MIRROR_EVERY = 4  # with seams on, every fourth sample repeats values across a seam
# Samples at the second size of a dynamic compile: its inputs are drawn by the same recipes. The
# case stores them, so fewer than the first size's keep case files small; 16 is the --samples at
# which the samples sweep (scripts/bench) found every planted bug that 64 found.
SECOND_SIZE_SAMPLES = 16
MARKED_CLASSES = (1, 1, 2)  # size classes a marked case marks: one, sometimes two
# A campaign's cases come in blocks of this many consecutive indices that share their drawn size mode,
# compiler options and thread count, so that a batch (Inductor's 8, `runner.batch`) compiles them together.
COMPILE_BLOCK = 8


def block_seed(campaign_seed: int | None, index: int) -> int | None:
    """The seed of the compile draws (size mode, options, threads) that case `index` shares with its block (COMPILE_BLOCK); None outside a campaign."""
    if campaign_seed is None:
        return None
    digest = hashlib.sha256(f"numfuzz-compile:{campaign_seed}:{index // COMPILE_BLOCK}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def make_case(
    seed: int, run: RunSpec, programs: GenConfig | None = None, mix: RunMix | None = None, lineage: tuple[int, ...] = (), shared: int | None = None
) -> Case:
    """The case for `seed` under `run`: `run.samples` samples, seam widths of `run`'s device; `programs` is the space drawn from.

    With a `mix`, the case's size mode and compiler options are drawn too (`draw_compile`); its
    graph and samples are the same as without, so a static case keeps the name it had. `shared`
    seeds the size mode, options and thread count (a campaign's `block_seed`; None: the case's own seed). A `lineage`
    (a guided campaign's child: one seed per mutation, `program.mutate`) mutates the seed's graph in
    turn; its samples, size mode and options are drawn from the last seed, and its provenance records the chain."""
    graph, recipes, origin = generate_with_origin(seed, programs, widths=run.device_kind)
    mutations = []
    for step in lineage:
        graph, name = mutate(graph, random.Random(step), run.device_kind, frozenset(programs.ops) if programs is not None else frozenset())
        mutations.append(name)
    own_seed = lineage[-1] if lineage else seed
    if is_large(graph):  # fewer samples and no search: a large case's cost stays bounded (`program.model_scale`)
        run = run.with_changes(samples=samples_for(graph, run.samples), search=0.0)
    seams = programs is not None and programs.seams
    drawn = draw_samples(graph, recipes, own_seed, run.samples, mirror_every=MIRROR_EVERY if seams else 0)
    tensors = [[round_to(v, spec) for v, spec in zip(sample, graph.inputs)] for sample in drawn]
    if lineage:  # a mutated shape can narrow an index's range
        tensors = [fitted for row in tensors if (fitted := into_range(graph, row)) is not None] or tensors
    provenance = {"seed": seed, **environment_provenance(run.device or "cpu"), "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if lineage:
        provenance["lineage"] = {"seeds": list(lineage), "mutations": mutations}
    provenance.update(origin)  # a window of a real model's graph: which model and nodes (`program.zoo`)
    shared = own_seed if lineage or shared is None else shared  # a child runs alone: its draws are its own
    run, second = draw_compile(own_seed, run, graph, recipes, mix, shared) if mix is not None and not mix.off else (run, None)
    grads = upstream_gradients(graph, own_seed, len(tensors)) if run.grad else None
    return Case.from_tensors(graph, tensors, run, grads, recipes=recipes, provenance=provenance, second=second)


def campaign_case(seed: int, index: int, run: RunSpec, programs: GenConfig | None, mix: RunMix | None, campaign_seed: int | None, lineage: tuple[int, ...] = ()) -> Case:
    """Case `index` of the campaign seeded `campaign_seed`: `make_case`, its compile draws shared with its block (`block_seed`)."""
    return make_case(seed, run, programs, mix, lineage, block_seed(campaign_seed, index))


def draw_compile(seed: int, run: RunSpec, graph: Graph, recipes: list[Recipe], mix: RunMix, shared: int | None = None) -> tuple[RunSpec, SecondSize | None]:
    """The case's size mode (static, dynamic, marked dims), compiler options and threads, by `mix`'s shares, with its second size.

    A mode the target's family does not compile, or a marked case with no dim that can vary, is
    static; options come from the family's section of the configuration space, as far as this
    torch has them. The mode, the options and the thread count are drawn from `shared` (default
    `seed`), the same for every case of a campaign's block, and drawn alike whatever the graph (a
    case whose graph cannot take the mode is static); the second size is each case's own. With
    gradients no second size is drawn (the check judges outputs only)."""
    rng = random.Random(seed ^ 0xD1_5A3E)
    key_rng = random.Random((seed if shared is None else shared) ^ 0xB10C)
    if not run.grad and draws_gradients(seed if shared is None else shared, mix):
        run = run.with_changes(grad=True)
    family = family_of(run.target)
    pick = key_rng.random()
    mode = "dynamic" if pick < mix.dynamic else "marked" if pick < mix.dynamic + mix.marked else "static"
    if mode == "static" and pick >= 1.0 - mix.automatic:  # from the top, so that the other shares draw as they did
        mode = "automatic"
    if family is None or mode not in drawn_modes(run.target, family.modes):
        mode = "static"
    options = {}
    if key_rng.random() < mix.config and family is not None and family.config_space:
        options = draw_options(available_entries(run.target, family.config_space), key_rng)
    threads = mix.thread_count if key_rng.random() < mix.threads and mix.thread_count > 1 else 0
    second, marked = None, ()
    if mode != "static":
        found = draw_second_size(graph, rng, rng.choice(MARKED_CLASSES) if mode == "marked" else None)
        if found is None and mode == "marked":
            mode = "static"  # nothing can vary: no dim to mark
        elif found is not None:
            graph2, dims = found
            marked = tuple(dims) if mode == "marked" else ()
            if not run.grad:
                rows = draw_samples(graph2, recipes, seed ^ 0x5EC0D, min(run.samples, SECOND_SIZE_SAMPLES))
                # an index recipe's bound is the first size's: take each index into the range of the ops at the second size
                fitted = [into_range(graph2, [round_to(v, spec) for v, spec in zip(row, graph2.inputs)]) for row in rows]
                if all(row is not None for row in fitted):
                    second = SecondSize(tuple(s.shape for s in graph2.inputs), tuple(tuple(encode(t) for t in row) for row in fitted))
    return run.with_changes(dynamic=mode, marked=marked, config=tuple(options.items()), threads=threads), second


def draws_gradients(shared: int, mix: RunMix) -> bool:
    """Whether a case judges its gradients, by `mix.grad`: drawn from its block's seed (`block_seed`), so that every case
    of a block is alike and forward-only blocks still compile in batches; apart from the other draws, which stay as they were."""
    return bool(mix.grad) and random.Random(shared ^ 0x6AAD).random() < mix.grad


@functools.lru_cache(maxsize=32)
def drawn_modes(spec: str, family_modes: tuple[str, ...]) -> tuple[str, ...]:
    """The size modes a campaign draws for this target: its family's, narrowed where the target says so (`drawn_modes`)."""
    return tuple(getattr(resolve(spec), "drawn_modes", family_modes))


@functools.lru_cache(maxsize=32)
def available_entries(spec: str, section: str) -> tuple[ConfigEntry, ...]:
    """The section's entries whose every option this target has (some options exist only in some torch versions)
    and that change something: an entry setting only this torch's defaults is left out (defaults move between versions)."""
    target = resolve(spec)
    kept = []
    for entry in entries_for(section, torch.__version__):
        try:
            ok = configured(target, RunSpec(spec, config=entry.options)).available()[0]
            defaults = getattr(target, "defaults", None)
            if ok and callable(defaults):
                ok = defaults(list(entry.as_dict)) != entry.as_dict
        except Exception:  # an option the target refuses outright
            ok = False
        if ok:
            kept.append(entry)
    return tuple(kept)


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
    return Case.from_tensors(case.graph, case.tensors(), case.run.with_changes(grad=True), grads, recipes=case.recipes, provenance=case.provenance, second=case.second)


def under_autocast(case: Case, dtype: str) -> Case:
    """The case with every node in a torch.autocast region of `dtype` (`program.autocast`), as a training step under
    autocast runs a block; a GraphError where a dtype the region gives does not fit a later op. Gradients, where
    the case had them, are drawn again for the outputs' new dtypes."""
    graph = with_region(case.graph, range(len(case.graph.nodes)), dtype)
    infer_specs(graph)
    plain = case.run.with_changes(grad=False)
    moved = Case.from_tensors(graph, case.tensors(), plain, None, recipes=case.recipes, provenance=case.provenance, second=case.second)
    return with_gradients(moved) if case.run.grad else moved
