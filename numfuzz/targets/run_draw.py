"""A case's run specification, decided once: its sample count, size mode, compiler options, threads and gradients.

A campaign's `RunMix` gives the shares; the case's `CaseAddress` gives the streams. The size mode,
the options, the thread count and whether gradients are judged are drawn from the stream its
block shares (`CaseAddress.shared`), so that a batch compiles a block together; the second size
is each case's own.
"""

from __future__ import annotations

import functools

import torch

from numfuzz.address import COMPILER_OPTIONS, GRADIENTS, SECOND_SHAPE, SIZE_MODE, THREADS, CaseAddress
from numfuzz.program.ir import Graph
from numfuzz.program.model_scale import is_large, samples_for
from numfuzz.program.sizes import draw_second_size
from numfuzz.run_spec import GRAD_SAMPLES, RunMix, RunSpec
from numfuzz.targets.compile_modes import configured
from numfuzz.targets.config_space import ConfigEntry, draw_options, entries_for
from numfuzz.targets.registry import family_of, resolve

MARKED_CLASSES = (1, 1, 2)  # size classes a marked case marks: one, sometimes two


def draw_run(address: CaseAddress, run: RunSpec, graph: Graph, mix: RunMix | None) -> tuple[RunSpec, Graph | None]:
    """The case's run, and its program at its second size (None: it has none).

    A large graph takes fewer samples and no search (`program.model_scale`), and a case whose gradients the mix
    draws at most `GRAD_SAMPLES` (a `--grad` run's cases keep its count). With a `mix`, the size
    mode (static, dynamic, marked dims), options and threads are drawn by its shares: a mode the
    target's family does not compile, or a marked case with no dim that can vary, is static;
    options come from the family's section of the configuration space, as far as this torch has
    them. They are drawn alike whatever the graph. With gradients no second size is judged."""
    if is_large(graph):
        run = run.with_changes(samples=samples_for(graph, run.samples), search=0.0)
    if mix is None or mix.off:
        return run, None
    if not run.grad and draws_gradients(address, mix):
        run = run.with_changes(grad=True, samples=min(run.samples, GRAD_SAMPLES))
    family = family_of(run.target)
    pick = address.stream(SIZE_MODE, of_block=True).random()
    mode = "dynamic" if pick < mix.dynamic else "marked" if pick < mix.dynamic + mix.marked else "static"
    if mode == "static" and pick >= 1.0 - mix.automatic:  # from the top, so that the other shares draw as they did
        mode = "automatic"
    if family is None or mode not in drawn_modes(run.target, family.modes):
        mode = "static"
    options = {}
    options_rng = address.stream(COMPILER_OPTIONS, of_block=True)
    if options_rng.random() < mix.config_share and family is not None and family.config_space:
        options = draw_options(available_entries(run.target, family.config_space), options_rng)
    threads = mix.thread_count if address.stream(THREADS, of_block=True).random() < mix.thread_share and mix.thread_count > 1 else 0
    graph2, marked = None, ()
    if mode != "static":
        rng = address.stream(SECOND_SHAPE)
        found = draw_second_size(graph, rng, rng.choice(MARKED_CLASSES) if mode == "marked" else None)
        if found is None and mode == "marked":
            mode = "static"  # nothing can vary: no dim to mark
        elif found is not None:
            graph2, dims = found
            marked = tuple(dims) if mode == "marked" else ()
    run = run.with_changes(dynamic=mode, marked=marked, compiler_options=tuple(options.items()), threads=threads)
    return run, None if run.grad else graph2


def draws_gradients(address: CaseAddress, mix: RunMix) -> bool:
    """Whether a case judges its gradients, by `mix.grad_share`: drawn from its block's stream, so that every case
    of a block is alike and its batch holds one kind (forward only, or with gradients); apart from the other draws."""
    return bool(mix.grad_share) and address.stream(GRADIENTS, of_block=True).random() < mix.grad_share


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
            ok = configured(target, RunSpec(spec, compiler_options=entry.options)).available()[0]
            defaults = getattr(target, "defaults", None)
            if ok and callable(defaults):
                ok = defaults(list(entry.as_dict)) != entry.as_dict
        except Exception:  # an option the target refuses outright
            ok = False
        if ok:
            kept.append(entry)
    return tuple(kept)
