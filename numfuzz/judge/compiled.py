"""One compiled program: a graph lowered once (eager and its float64 reference) and compiled once by a target.

Everything that runs a graph on a target goes through this object: the judge, the input
search, the cause sweeps, batches and the report's sweep plots. It is built once per case and
target; the target compiles on its first call, and every later call reuses that compile.
"""

from __future__ import annotations

import copy
import time
from typing import Callable

import numpy as np
import torch

from numfuzz.program.dtypes import is_integer
from numfuzz.program.fine import fine_outputs, is_fine
from numfuzz.program.ir import Graph, TensorSpec
from numfuzz.program.layout import apply_layout
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.scalars import values as scalar_values
from numfuzz.targets import Target
from numfuzz.targets.boundary import eager_running
from numfuzz.targets.compile_modes import compile_count, inside_target

Sample = list[torch.Tensor]
# An integer input gets no gradient: its place among the judged values is an empty fp32 tensor on
# every side, which the oracle leaves out (no elements), so later gradients keep their positions.
NO_GRADIENT_DTYPE = "fp32"


def as_tuple(result: object) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def flat64(tensors: list[torch.Tensor]) -> np.ndarray:
    """Tensors as one flat float64 array, in order."""
    return np.concatenate([t.detach().to("cpu", torch.float64).reshape(-1).numpy() for t in tensors])


class CompiledProgram:
    """`graph` as eager runs it, as float64 runs it, and as `target` compiles it on `device`.

    With `grad`, every run also gives the gradient of each input for upstream gradients of the
    outputs (the `*_grads` methods), through autograd on each side: the target compiles its
    backward too. Raises GraphError at construction for an ill-typed graph.

    Samples hold each input's logical values, contiguous; every run (eager, the target and the
    float64 reference alike) gets them laid out as the input's spec says (`program.layout`). The
    graph's passed scalars (`program.scalars`) follow the inputs in every call, on every side.
    """

    def __init__(self, graph: Graph, target: Target, device: str, grad: bool = False):
        self.graph, self.target, self.device, self.grad = graph, target, device, grad
        self.specs = infer_specs(graph)
        self.out_specs = [self.specs[o] for o in graph.outputs]
        self.out_dtypes = [s.dtype for s in self.out_specs]
        # what the judge compares: the outputs, then with gradients each input's gradient
        self.judged_dtypes = _judged_dtypes(self.out_dtypes, graph, grad)
        self.scalars = scalar_values(graph)
        self.fn = compile_source(lower(graph))
        self.reference_fn = compile_source(lower(graph, reference=True, grad=grad))
        # a float64 program's reference runs finer than float64 (numfuzz.program.fine); its gradients are never judged
        self.fine_source = lower(graph, reference=True) if is_fine(graph) else None
        self._compiled: Callable | None = None
        self.compile_s = 0.0  # the first target call, which compiles
        self.run_s = 0.0  # every later target call

    def at_size(self, graph: Graph) -> CompiledProgram:
        """The same compiled program, for inputs of `graph`'s shapes and its passed scalars' values: the same
        nodes on inputs resized (`numfuzz.program.sizes`), so the same source and the same compile; nothing
        recompiles here (the target may, when a guard fails)."""
        if lower(graph, defaults=False) != lower(self.graph, defaults=False):
            raise ValueError("a program at another size must have the same source")
        view = copy.copy(self)
        view.graph, view.specs, view.scalars = graph, infer_specs(graph), scalar_values(graph)
        view.out_specs = [view.specs[o] for o in graph.outputs]
        view.out_dtypes = [s.dtype for s in view.out_specs]
        view.judged_dtypes = _judged_dtypes(view.out_dtypes, graph, self.grad)
        return view

    def compiles(self) -> int | None:
        """Compiles the target has spent on this program so far, where it can tell."""
        return compile_count(self.target, self._compiled) if self._compiled is not None else None

    def on_device(self, sample: Sample) -> Sample:
        return [x.to(self.device) for x in sample]

    def laid_out(self, sample: Sample) -> Sample:
        """The sample's inputs as the views their layouts describe."""
        return laid_out(sample, self.graph.inputs)

    def eager(self, sample: Sample) -> tuple:
        """Eager's outputs on a sample already on the device."""
        with torch.no_grad(), eager_running():
            return as_tuple(self.fn(*self.laid_out(sample), *self.scalars))

    def reference(self, sample: Sample) -> tuple:
        """The float64 reference's outputs (on the CPU) for a sample anywhere; a float64 program's from the fine reference."""
        with torch.no_grad():
            outputs = as_tuple(self.reference_fn(*self.laid_out(as_reference(sample)), *self.scalars))
        return outputs if self.fine_source is None else _finer(self.fine_source, sample, self.scalars, outputs)

    def prepare(self) -> None:
        """Compile now (the target's `prepare`); raises what the target raises."""
        if self._compiled is None:
            with inside_target(self.target):
                self.target.reset()
                self._compiled = self.target.prepare(self.fn, self.device)

    def run(self, sample: Sample) -> tuple:
        """The target's outputs on a sample already on the device; raises what the target raises."""

        inputs = self.laid_out(sample)

        def outputs() -> tuple:
            with torch.no_grad():
                return as_tuple(self._compiled(*inputs, *self.scalars))

        return self._timed(outputs)

    def _timed(self, call: Callable[[], tuple]) -> tuple:
        """One call of the compiled target: the first counts as the compile, every later one as a run."""
        self.prepare()
        start = time.perf_counter()
        try:
            with inside_target(self.target):  # a backward's lazy compile happens in `call` too
                return call()
        finally:
            elapsed = time.perf_counter() - start
            if self.compile_s == 0.0:
                self.compile_s = elapsed
            else:
                self.run_s += elapsed

    def eager_grads(self, sample: Sample, upstream: Sample) -> tuple:
        """Eager's outputs and input gradients, for upstream gradients of the outputs (all on the device)."""
        with eager_running():
            return with_grads(self.fn, sample, upstream, self.graph.inputs, self.scalars)

    def reference_grads(self, sample: Sample, upstream: Sample) -> tuple:
        """The float64 reference's outputs and input gradients (on the CPU); casts round the gradient too."""
        return with_grads(self.reference_fn, as_reference(sample), as_reference(upstream), self.graph.inputs, self.scalars)

    def run_grads(self, sample: Sample, upstream: Sample) -> tuple:
        """The target's outputs and input gradients, through its compiled forward and backward."""
        return self._timed(lambda: with_grads(self._compiled, sample, upstream, self.graph.inputs, self.scalars))

    def trace(self) -> str | None:
        """The target's final trace of what it ran, where it has one."""
        return self.target.final_trace(self._compiled) if self._compiled is not None else None


def _finer(source: str, sample: Sample, scalars: list | tuple, outputs: tuple) -> tuple:
    """`outputs` (float64) replaced by the fine reference's, each rounded once; kept where it cannot answer."""
    fine = fine_outputs(source, [x.detach().to("cpu", torch.float64).numpy() for x in sample], list(scalars))
    if fine is None or any(f.size != o.numel() for f, o in zip(fine, outputs)):
        return outputs
    return tuple(torch.from_numpy(np.ascontiguousarray(f)).reshape(o.shape) for f, o in zip(fine, outputs))


def as_reference(sample: Sample) -> Sample:
    """A sample as the float64 reference takes it: floats in float64, integer inputs as they are, on the CPU."""
    return [x.to("cpu", torch.float64) if x.is_floating_point() else x.to("cpu") for x in sample]


def reference_flat(
    graph: Graph,
    samples: list[Sample],
    output: int,
    exact_casts: frozenset[int] = frozenset(),
    upstream: list[Sample] | None = None,
) -> np.ndarray:
    """Judged value `output` of the float64 reference, flat over the samples, with the casts at `exact_casts` taken as
    no-ops (`lowering.lower`); with `upstream`, judged values run on past the outputs into each input's gradient, and the
    other casts round the gradient too."""
    if upstream is not None:
        fn = compile_source(lower(graph, reference=True, exact_casts=exact_casts, grad=True))
        runs = [with_grads(fn, as_reference(s), as_reference(g), graph.inputs)[output] for s, g in zip(samples, upstream)]
    else:
        fn = compile_source(lower(graph, reference=True, exact_casts=exact_casts))
        with torch.no_grad():
            runs = [fn(*laid_out(as_reference(sample), graph.inputs))[output] for sample in samples]
    return np.concatenate([r.detach().to(torch.float64).reshape(-1).numpy() for r in runs])


def laid_out(sample: Sample, specs: tuple[TensorSpec, ...] | list[TensorSpec]) -> Sample:
    """Each input as the view its spec's layout describes (itself where plain)."""
    return [apply_layout(x, spec.layout) for x, spec in zip(sample, specs)]


def with_grads(fn: Callable, sample: Sample, upstream: Sample, specs: tuple[TensorSpec, ...], scalars: list | tuple = ()) -> tuple:
    """fn's outputs, then the gradient of each input (zeros where an input does not reach an output).

    The leaves are the inputs' logical values; fn gets them laid out (a view of a leaf's copy, so
    the gradient flows back through the layout). An integer input gets no gradient (`NO_GRADIENT_DTYPE`).
    """
    wants = [not is_integer(spec.dtype) for spec in specs]
    leaves = [x.detach().clone().requires_grad_(True) if want else x for x, want in zip(sample, wants)]
    floats = [x for x, want in zip(leaves, wants) if want]
    with torch.enable_grad():
        outs = as_tuple(fn(*laid_out(leaves, specs), *scalars))
        pairs = [(o, g) for o, g in zip(outs, upstream) if isinstance(o, torch.Tensor) and o.requires_grad]
        grads = iter(torch.autograd.grad([o for o, _ in pairs], floats, [g for _, g in pairs], allow_unused=True) if pairs else [None] * len(floats))
    judged = []
    for x, want in zip(leaves, wants):
        g = next(grads) if want else None
        judged.append(torch.zeros(0, device=x.device) if not want else torch.zeros_like(x) if g is None else g.detach())
    return tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in outs) + tuple(judged)


def output_label(index: int, outputs: int) -> str:
    """What judged value `index` is: an output, or (with gradients) the gradient of an input."""
    return f"output {index}" if index < outputs else f"the gradient of input x{index - outputs}"


def _judged_dtypes(out_dtypes: list[str], graph: Graph, grad: bool) -> list[str]:
    """What the judge compares: the outputs, then with gradients each input's gradient (an integer input's is empty)."""
    return out_dtypes + ([NO_GRADIENT_DTYPE if is_integer(s.dtype) else s.dtype for s in graph.inputs] if grad else [])
