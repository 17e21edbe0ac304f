"""What makes Thunder's jit take a transformers 5 model: the two module-level context variables it cannot trace, made inert.

transformers 5 routes each attention's rotary embedding through the `kernels` package's hub-kernel
switch (`_ACTIVE_KERNEL_FUNCS`) and captures hidden states through its own collector
(`output_capturing._active_collector`). Both are `CompileableContextVar`s: outside Dynamo a
ContextVar, inside it an attribute of a module-level object set while compiling. Thunder's jit is not
Dynamo, so each `set` becomes a write to a global object that its epilogue refuses (`AssertionError:
trying to set .global_var of ProvenanceRecord`), whatever the model computes.

Inert, `get` gives None and `set` keeps nothing: no hub kernel is chosen (none is loaded on CPU, so the
function called is the one it would call anyway) and no hidden state is collected (a sweep asks for
none). The model computes what it computed; `uses_context_vars` says whether it sets them at all, so
a sweep can say per architecture whether this was needed.

A mixture of experts computes its experts through the config's `_experts_implementation`: `grouped_mm` by default,
which on CPU calls transformers' custom op `transformers::grouped_mm_fallback`, and Thunder's jit takes no custom op
it was not told of (a known limitation, the same crash in every MoE model). `batched_mm` computes the same experts
with plain indexing and batched matmuls; Thunder's jit is given such a model so, eager and the float64 reference
alike, and the way says it.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator, Sequence
from typing import Any

# (module, attribute) of each context variable, where the installed packages have it
CONTEXT_VARS = (("transformers.utils.output_capturing", "_active_collector"), ("kernels._internals.layer.layer", "_ACTIVE_KERNEL_FUNCS"))
WAY_SHIPPED = "as shipped"
WAY_INERT = "context variables inert"
# a model that reads what the collector holds (a multimodal model's vision features taken from a hidden layer) fails with it
# inert in eager too: it is given as shipped, and Thunder's jit then meets the variables as a user's call would
WAY_SHIPPED_READS = "as shipped (with its context variables inert the model itself fails: it reads what they collect)"
WAY_BATCHED_EXPERTS = "MoE experts as batched_mm"  # added to the way, after "and", where the model's experts use grouped_mm
GROUPED, BATCHED = "grouped_mm", "batched_mm"


class _Inert:
    """A context variable that holds nothing."""

    def get(self) -> None:
        return None

    def set(self, value: Any) -> None:
        return None

    def reset(self, token: Any) -> None:
        return None


class _Counting:
    """A context variable that passes every call on and counts the sets."""

    def __init__(self, inner: Any):
        self.inner, self.sets = inner, 0

    def get(self) -> Any:
        return self.inner.get()

    def set(self, value: Any) -> Any:
        self.sets += 1
        return self.inner.set(value)

    def reset(self, token: Any) -> Any:
        return self.inner.reset(token)


def _present() -> list[tuple[Any, str]]:
    found = []
    for module_name, attribute in CONTEXT_VARS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # an older transformers, or no kernels package: nothing to replace
            continue
        if hasattr(module, attribute):
            found.append((module, attribute))
    return found


@contextlib.contextmanager
def _replaced(make: Any) -> Iterator[list[Any]]:
    present = _present()
    kept = [getattr(m, a) for m, a in present]
    made = [make(old) for old in kept]
    for (module, attribute), new in zip(present, made):
        setattr(module, attribute, new)
    try:
        yield made
    finally:
        for (module, attribute), old in zip(present, kept):
            setattr(module, attribute, old)


def inert_context_vars() -> contextlib.AbstractContextManager:
    """Within it, transformers' and kernels' context variables hold nothing (see the module)."""
    return _replaced(lambda old: _Inert())


def uses_context_vars(model: Any, inputs: Sequence[Any]) -> bool:
    """Whether one eager call of `model` sets either context variable (and so Thunder's jit needs them inert)."""
    import torch

    with _replaced(_Counting) as counting, torch.no_grad():
        model(*inputs)
    return any(c.sets for c in counting)


def needs_inert(target: str, model: Any, inputs: Sequence[Any]) -> bool:
    """Whether a target is given the model with the context variables inert: Thunder's jit (`thunder:`), where the model sets them."""
    return target.startswith("thunder:") and uses_context_vars(model, inputs)


def way_words(way: str) -> str:
    """How a target was given the model, as a sentence's end: "was given the model ..."."""
    words = [f"with its {part}" if part in (WAY_INERT, WAY_BATCHED_EXPERTS) else part for part in way.split(" and ")]
    return " and ".join(words)


def _grouped_experts(model: Any) -> list[Any]:
    """The distinct configs of `model`'s modules whose experts run as grouped_mm (transformers' custom op on CPU)."""
    found: dict[int, Any] = {}
    for module in model.modules():
        config = getattr(module, "config", None)
        if getattr(config, "_experts_implementation", None) == GROUPED:
            found.setdefault(id(config), config)
    return list(found.values())


@contextlib.contextmanager
def batched_experts(configs: Sequence[Any]) -> Iterator[None]:
    """Within it, the experts of `configs` compute as batched_mm; as they were after."""
    kept = [c._experts_implementation for c in configs]
    try:
        for config in configs:
            config._experts_implementation = BATCHED
        yield
    finally:
        for config, value in zip(configs, kept):
            config._experts_implementation = value


def _runs_inert(model: Any, inputs: Sequence[Any]) -> bool:
    """Whether one eager call of `model` runs with the context variables inert."""
    import torch

    try:
        with inert_context_vars(), torch.no_grad():
            model(*inputs)
    except Exception:  # the model's own failure: what it reads is not there
        return False
    return True


def run_way(target: str, model: Any, inputs: Sequence[Any]) -> tuple[str, contextlib.AbstractContextManager]:
    """How `target` is given the model (WAY_SHIPPED, WAY_INERT, or WAY_SHIPPED_READS where the model fails with them inert;
    and WAY_BATCHED_EXPERTS for Thunder's jit of a model whose experts use grouped_mm), and the context to judge it in."""
    experts = _grouped_experts(model) if target.startswith("thunder:") and hasattr(model, "modules") else []
    with batched_experts(experts):
        way, context = _context_way(target, model, inputs)
    if not experts:
        return way, context
    return (f"{way} and {WAY_BATCHED_EXPERTS}" if way != WAY_SHIPPED else WAY_BATCHED_EXPERTS), _both(batched_experts(experts), context)


def _context_way(target: str, model: Any, inputs: Sequence[Any]) -> tuple[str, contextlib.AbstractContextManager]:
    if not needs_inert(target, model, inputs):
        return WAY_SHIPPED, contextlib.nullcontext()
    if not _runs_inert(model, inputs):
        return WAY_SHIPPED_READS, contextlib.nullcontext()
    return WAY_INERT, inert_context_vars()


@contextlib.contextmanager
def _both(first: contextlib.AbstractContextManager, second: contextlib.AbstractContextManager) -> Iterator[None]:
    with first, second:
        yield
