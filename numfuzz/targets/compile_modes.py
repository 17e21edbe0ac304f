"""A target compiling the way a case's run specification asks: symbolic sizes, marked dims, drawn options.

A target whose family supports these (`registry.Family.modes`, `config_space`) has
`configured(run) -> Target`: a copy that compiles with the run's size mode and options and whose
`repro_source` writes the same. `compile_count(compiled)` counts the compiles behind a compiled
callable, so that the second-size check can tell a recompile from a run of the same program.
`inside_target(target)` is what every call into a target runs inside (a traced case's line tracer).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, Callable

from numfuzz.run_spec import RunSpec
from numfuzz.targets.boundary import crossed
from numfuzz.targets.protocol import Target, TargetError


def configured(target: Target, run: RunSpec) -> Target:
    """`target` compiling as `run` asks; a TargetError (one line) when it cannot."""
    if run.dynamic == "static" and not run.compiler_options:  # threads are torch's, set around the case: no target needs to know
        return target
    method = getattr(target, "configured", None)
    if not callable(method):
        raise TargetError(f"target {target.name} compiles static sizes with its own options only; the case asks for {run.compile_label(dims=True)}")
    return method(run)


def compile_count(target: Target, compiled: Callable) -> int | None:
    """How many compiles `compiled` has cost so far, where the target can tell (None where not)."""
    method = getattr(target, "compile_count", None)
    return method(getattr(compiled, "numfuzz_inner", compiled)) if callable(method) else None


@contextmanager
def inside_target(target: Target) -> Iterator[None]:
    """What a call into the target (its compile, its compiled forward, a backward through it) runs inside: the
    worker's flag that it is in the target (`boundary`), and a worker's line tracer while a traced case runs
    (`TimedTarget.calling`)."""
    method = getattr(target, "calling", None)
    with crossed(), method() if callable(method) else nullcontext():
        yield


def dynamic_argument(mode: str) -> bool | None:
    """torch.compile's `dynamic` for a size mode: None (its default) for automatic, True for dynamic, else False
    (marked dims are marked on a static compile)."""
    return None if mode == "automatic" else mode == "dynamic"


def dynamo_compiles() -> int:
    """Graphs Dynamo has compiled in this process: a recompile adds one."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


DYNAMO_COMPILES_SOURCE = ("from torch._dynamo.utils import counters", 'counters["stats"]["unique_graphs"]')


def marking(compiled: Callable, marked: tuple[tuple[int, int], ...]) -> Callable:
    """`compiled` with the (input, dim) pairs marked dynamic on every call; pairs an argument lacks are left alone.

    (Probes and cut programs of the analysis have other inputs; a dim of size 1 is not marked,
    as Dynamo would specialise it.)"""
    import torch

    def call(*args: Any) -> Any:
        for i, d in marked:
            if i < len(args) and isinstance(args[i], torch.Tensor) and d < args[i].dim() and args[i].shape[d] >= 2:
                torch._dynamo.mark_dynamic(args[i], d)
        return compiled(*args)

    call.numfuzz_inner = compiled  # type: ignore[attr-defined]
    return call


MARK_DIMS_SOURCE = '''\
def mark_dims(compiled, dims):
    """Mark these (input, dim) pairs dynamic (torch._dynamo.mark_dynamic) before every call, as numfuzz did."""
    def call(*args):
        for i, d in dims:
            torch._dynamo.mark_dynamic(args[i], d)
        return compiled(*args)
    return call


'''


def check_modes(spec: str, run: RunSpec, modes: tuple[str, ...]) -> None:
    """A TargetError unless the family compiles `run`'s size mode."""
    if run.dynamic not in modes:
        raise TargetError(f"target {spec} cannot compile dynamic={run.dynamic!r}: it compiles {', '.join(modes)}")
