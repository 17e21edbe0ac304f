"""Passes over the inputs: fewer samples, smaller shapes, one value everywhere, one dtype."""

from __future__ import annotations

import math

import numpy as np

from numfuzz.corpus.case import Case, stored_signature
from numfuzz.corpus.size_order import smaller
from numfuzz.program.dtypes import is_integer
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import round_to
from numfuzz.reduce.case_edit import keep_samples, map_inputs, reshape_inputs, select, stack_samples
from numfuzz.reduce.ddmin import ddmin
from numfuzz.reduce.passes.hints import flagged_element, worst_sample
from numfuzz.reduce.shrinker import Candidates


class ReduceSamples:
    """Keep the sample with the worst element; delta-debug samples; then stack them into one."""

    name = "samples"

    def candidates(self, case: Case) -> Candidates:
        current = case
        worst = worst_sample(current)
        if worst is not None and len(current.samples) > 1:
            candidate = smaller(keep_samples(current, [worst]), current)
            if candidate is not None and (yield candidate):
                return
        current = yield from ddmin(current, lambda c: len(c.samples), keep_samples)
        candidate = smaller(stack_samples(current), current)
        if candidate is not None:
            yield candidate


class ShrinkShapes:
    """Drop size-1 (broadcast) dims, flatten, and keep only the elements that matter along each dim."""

    name = "shapes"

    def candidates(self, case: Case) -> Candidates:
        current = case
        for shapes in self._reshapes(current):
            candidate = smaller(reshape_inputs(current, shapes), current)
            if candidate is not None and (yield candidate):
                current = candidate
        seen: set[tuple] = set()
        for members, hint in self._dim_classes(current):
            if tuple(members) in seen:
                continue
            seen.add(tuple(members))
            i0, d0 = members[0]
            if current.graph.inputs[i0].shape[d0] < 2:
                continue
            if hint is not None:
                candidate = smaller(select(current, members, [hint]), current)
                if candidate is not None and (yield candidate):
                    current = candidate
                    continue
            current = yield from ddmin(current, lambda c, i0=i0, d0=d0: c.graph.inputs[i0].shape[d0], lambda c, idx, m=members: select(c, m, idx))

    @staticmethod
    def _reshapes(case: Case) -> list[dict[int, tuple[int, ...]]]:
        inputs = case.graph.inputs
        squeezed = {i: tuple(d for d in s.shape if d != 1) for i, s in enumerate(inputs) if 1 in s.shape}
        out = [squeezed] + [{i: shape} for i, shape in squeezed.items()]
        out += [{i: tuple(s.shape[:d] + s.shape[d + 1 :])} for i, s in enumerate(inputs) for d in range(len(s.shape)) if s.shape[d] == 1]
        by_shape: dict[tuple, list[int]] = {}
        for i, s in enumerate(inputs):
            if len(s.shape) >= 2:
                by_shape.setdefault(s.shape, []).append(i)
        for shape, members in by_shape.items():
            out.append({i: (math.prod(shape),) for i in members})
        out += [{i: (s.numel,)} for i, s in enumerate(inputs) if len(s.shape) >= 2]
        return [shapes for shapes in out if shapes]

    @staticmethod
    def _dim_classes(case: Case) -> list[tuple[list[tuple[int, int]], int | None]]:
        """Groups of (input, dim) to cut together: aligned from the right as broadcasting does, then
        every dim of one size, then single dims. With the index of the worst element where known."""
        inputs = case.graph.inputs
        flagged = flagged_element(case)
        classes: list[tuple[list[tuple[int, int]], int | None]] = []
        sizes = sorted({(len(s.shape) - 1 - d, n) for s in inputs for d, n in enumerate(s.shape) if n > 1})
        for pos, n in sizes:
            members = [(i, len(s.shape) - 1 - pos) for i, s in enumerate(inputs) if len(s.shape) > pos and s.shape[-1 - pos] == n]
            hint = None
            if flagged is not None and flagged[2] >= 0 and len(flagged[1]) > pos and flagged[1][-1 - pos] == n:
                hint = int(np.unravel_index(flagged[2], flagged[1])[-1 - pos])
            classes.append((members, hint))
        for n in sorted({n for s in inputs for n in s.shape if n > 1}):
            classes.append(([(i, d) for i, s in enumerate(inputs) for d, m in enumerate(s.shape) if m == n], None))
        classes += [([(i, d)], None) for i, s in enumerate(inputs) for d, m in enumerate(s.shape) if m > 1]
        return classes


class FocusWorst:
    """Give every element of an input the value its worst element has: one value, many witnesses."""

    name = "focus-worst"

    def candidates(self, case: Case) -> Candidates:
        flagged, sample = flagged_element(case), worst_sample(case)
        if flagged is None or flagged[2] < 0 or sample is None:
            return
        out_shape = flagged[1]
        where = tuple(int(i) for i in np.unravel_index(flagged[2], out_shape)) if out_shape else ()
        row = case.tensors()[sample]
        fills: dict[int, float] = {}
        for i, spec in enumerate(case.graph.inputs):
            lead = len(out_shape) - len(spec.shape)
            if lead < 0 or any(n not in (1, out_shape[lead + d]) for d, n in enumerate(spec.shape)):
                continue  # does not broadcast to the output: no element to point at
            pos = tuple(where[lead + d] if n > 1 else 0 for d, n in enumerate(spec.shape))
            fills[i] = float(row[i][pos].double())
        groups = [fills] + ([{i: v} for i, v in fills.items()] if len(fills) > 1 else [])
        for group in groups:
            fill = lambda i, x, spec, g=group: np.full(x.shape, g[i]) if i in g else None  # noqa: E731
            candidate = smaller(map_inputs(case, fill), case)
            if candidate is not None and (yield candidate):
                return


class UnifyDtypes:
    """Give every float input one dtype (values rounded to it)."""

    name = "unify-dtypes"

    def candidates(self, case: Case) -> Candidates:
        if len({s.dtype for s in infer_specs(case.graph) if not is_integer(s.dtype)}) < 2:
            return
        sig = stored_signature(case)
        floats = [i for i, s in enumerate(case.graph.inputs) if not is_integer(s.dtype)]  # indices stay integers
        order = sorted({case.graph.inputs[i].dtype for i in floats}, key=lambda d: (sig is None or d != sig.dtype, d))
        for dtype in order:
            everything = {i: dtype for i in floats}
            rounded = smaller(map_inputs(case, lambda i, x, spec: round_to(x, spec).double().numpy(), everything), case)
            if rounded is not None and (yield rounded):
                return
