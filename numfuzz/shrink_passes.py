"""The minimiser's passes and their schedule (as data). Each pass follows `numfuzz.shrink.ShrinkPass`.

Passes read two hints from the current case, when present: `case.result` (the outcome of the last
accepted candidate: which output and element are worst) and `case.extra["signature"]` (the culprit
op). Hints only order the candidates; the predicate decides.
"""

from __future__ import annotations

import math
from typing import Generator

import numpy as np

from numfuzz.case_edit import all_values, cut_nodes, keep_samples, map_inputs, rebuild, reshape_inputs, select, stack_samples
from numfuzz.corpus import Case
from numfuzz.graph_edit import cone, replace_uses, sinks, with_outputs
from numfuzz.ops import infer_specs
from numfuzz.shrink import Candidates, ddmin, input_values, smaller, value_cost
from numfuzz.signature import flagged_output, recorded_outcome, stored_signature
from numfuzz.values import round_to


def _flagged(case: Case) -> tuple[int, tuple[int, ...], int] | None:
    """(output position, output shape, flat index of the worst element in its sample), from the hint."""
    if not case.result:
        return None
    errors = flagged_output(recorded_outcome(case))
    if errors is None or errors.index >= len(case.graph.outputs):
        return None
    shape = infer_specs(case.graph)[case.graph.outputs[errors.index]].shape
    numel = math.prod(shape)
    return errors.index, shape, (errors.worst_element % numel if numel and errors.worst_element >= 0 else -1)


def _worst_sample(case: Case) -> int | None:
    errors = flagged_output(recorded_outcome(case)) if case.result else None
    if errors is None or errors.worst_element < 0 or errors.index >= len(case.graph.outputs):
        return None
    numel = math.prod(infer_specs(case.graph)[case.graph.outputs[errors.index]].shape)
    sample = errors.worst_element // numel if numel else -1
    return sample if 0 <= sample < len(case.samples) else None


class DropOutputs:
    """Keep only the worst output; else drop outputs one at a time."""

    name = "drop-outputs"

    def candidates(self, case: Case) -> Candidates:
        current = case
        flagged = _flagged(current)
        if flagged is not None and len(current.graph.outputs) > 1:
            only = with_outputs(current.graph, [current.graph.outputs[flagged[0]]])
            candidate = smaller(rebuild(current, only, current.tensors()), current)
            if candidate is not None and (yield candidate):
                return
        i = 0
        while len(current.graph.outputs) > 1 and i < len(current.graph.outputs):
            outputs = list(current.graph.outputs)
            del outputs[i]
            candidate = smaller(rebuild(current, with_outputs(current.graph, outputs), current.tensors()), current)
            if candidate is not None and (yield candidate):
                current = candidate
            else:
                i += 1


class CutNodes:
    """Remove nodes by replacing them with inputs that hold their eager values.

    First the culprit op alone, then with one producer; then delta debugging over the set of kept nodes.
    """

    name = "cut-nodes"

    def candidates(self, case: Case) -> Candidates:
        memo: dict[str, list] = {}

        def keep(c: Case, kept: list[int]) -> Case | None:
            digest = c.content_hash()
            if digest not in memo:
                memo.clear()
                try:
                    memo[digest] = all_values(c)
                except Exception:  # eager on the CPU can refuse what ran on the device: no cuts then
                    memo[digest] = None
            if memo[digest] is None:
                return None
            keep_set = set(kept)
            cut_set = set(range(len(c.graph.nodes))) - keep_set
            return cut_nodes(c, memo[digest], cut_set, sinks(c.graph, keep_set))

        current = case
        for kept in self._hinted(current):
            candidate = smaller(keep(current, kept), current)
            if candidate is not None and (yield candidate):
                current = candidate
                break
        yield from ddmin(current, lambda c: len(c.graph.nodes), keep)

    @staticmethod
    def _hinted(case: Case) -> list[list[int]]:
        sig = stored_signature(case)
        if sig is None or not sig.located:
            return []
        g, n_in = case.graph, len(case.graph.inputs)
        specs = infer_specs(g)
        flagged = _flagged(case)
        near = set(cone(g, g.outputs[flagged[0]])) if flagged else set(range(len(g.nodes)))
        culprits = [k for k, n in enumerate(g.nodes) if n.op in sig.ops and specs[n_in + k].dtype == sig.dtype]
        culprits.sort(key=lambda k: (k not in near, -k))
        sets = [[k] for k in culprits]
        sets += [sorted({k, a - n_in}) for k in culprits for a in g.nodes[k].args if a >= n_in]
        return sets


class BypassNodes:
    """Replace a node by one of its arguments."""

    name = "bypass-nodes"

    def candidates(self, case: Case) -> Candidates:
        current = case
        k = len(current.graph.nodes) - 1
        while k >= 0:
            g = current.graph
            n_in = len(g.inputs)
            if k < len(g.nodes):
                for arg in dict.fromkeys(g.nodes[k].args):
                    edited = replace_uses(g, n_in + k, arg)
                    outputs = [o for o in edited.outputs if o >= n_in]  # an input passed through says nothing
                    if not outputs:
                        continue
                    candidate = smaller(rebuild(current, with_outputs(edited, outputs), current.tensors()), current)
                    if candidate is not None and (yield candidate):
                        current = candidate
                        break
            k -= 1


class MergeInputs:
    """Let one input stand for another of the same spec."""

    name = "merge-inputs"

    def candidates(self, case: Case) -> Candidates:
        current = case
        j = len(current.graph.inputs) - 1
        while j > 0:
            inputs = current.graph.inputs
            for i in range(min(j, len(inputs))):
                if j < len(inputs) and inputs[i] == inputs[j]:
                    candidate = smaller(rebuild(current, replace_uses(current.graph, j, i), current.tensors()), current)
                    if candidate is not None and (yield candidate):
                        current = candidate
                        break
            j -= 1


class ReduceSamples:
    """Keep the sample with the worst element; delta-debug samples; then stack them into one."""

    name = "samples"

    def candidates(self, case: Case) -> Candidates:
        current = case
        worst = _worst_sample(current)
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
            current = yield from ddmin(
                current, lambda c, i0=i0, d0=d0: c.graph.inputs[i0].shape[d0], lambda c, idx, m=members: select(c, m, idx)
            )

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
        flagged = _flagged(case)
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
        flagged, sample = _flagged(case), _worst_sample(case)
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
    """Give every input one dtype (values rounded to it)."""

    name = "unify-dtypes"

    def candidates(self, case: Case) -> Candidates:
        if len({s.dtype for s in infer_specs(case.graph)}) < 2:
            return
        sig = stored_signature(case)
        order = sorted({s.dtype for s in case.graph.inputs}, key=lambda d: (sig is None or d != sig.dtype, d))
        for dtype in order:
            everything = {i: dtype for i in range(len(case.graph.inputs))}
            rounded = smaller(map_inputs(case, lambda i, x, spec: round_to(x, spec).double().numpy(), everything), case)
            if rounded is not None and (yield rounded):
                return


def _round_sig(x: np.ndarray | float, bits: int) -> np.ndarray:
    """Round to `bits` significant bits (to nearest even)."""
    mant, exp = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.round(mant * 2.0**bits) / 2.0**bits, exp)


def _sig_bits(v: float) -> int:
    if v == 0 or not math.isfinite(v):
        return 0
    m = int(abs(math.frexp(v)[0]) * 2.0**53)
    return 53 - ((m & -m).bit_length() - 1)


def _distinct(values: np.ndarray) -> np.ndarray:
    """Distinct values by bit pattern (so -0.0 and 0.0 differ, as in the size order)."""
    return np.unique(values.view(np.int64)).view(np.float64)


def _replace(value: float, by: float):
    bits = np.float64(value).view(np.int64)
    return lambda i, x, spec: np.where(x.view(np.int64) == bits, by, x)


def _present(case: Case, v: float) -> bool:
    return bool(np.any(input_values(case).view(np.int64) == np.float64(v).view(np.int64)))


class SimplifyValues:
    """Input values toward 0, +-1 and powers of two, with fewer significant bits and fewer distinct values.

    Each distinct value (most complex first) tries constants and its neighbours, then bisects the
    number of significant bits, then its exponent toward 0, then the fewest set bits for its length.
    """

    name = "values"

    def candidates(self, case: Case) -> Candidates:
        current = case
        for bits in (1, 2, 3):
            candidate = smaller(map_inputs(current, lambda i, x, spec, b=bits: _round_sig(x, b)), current)
            if candidate is not None and (yield candidate):
                current = candidate
                break
        order = sorted(_distinct(input_values(current)).tolist(), key=lambda v: (-int(value_cost(np.array([v]))[0]), str(v)))
        for v in order:
            if _present(current, v):
                current = yield from self._simplify(current, v)

    def _simplify(self, current: Case, v: float) -> Generator[Case, bool, Case]:
        def attempt(c: Case, old: float, new: float) -> Case | None:
            return smaller(map_inputs(c, _replace(old, new)), c) if new != old or math.copysign(1, new) != math.copysign(1, old) else None

        for new in self._constants(v, _distinct(input_values(current))):
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                return candidate
        if not math.isfinite(v) or v == 0:
            return current
        lo, hi = 1, _sig_bits(v)  # bisect: fewest significant bits that keep the finding
        while lo < hi:
            mid = (lo + hi) // 2
            new = float(_round_sig(v, mid))
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                current, v, hi = candidate, new, mid
            else:
                lo = mid + 1
        exp = math.frexp(v)[1] - 1
        lo, hi = 0, abs(exp)  # bisect: exponent toward 0, same significand
        while lo < hi:
            mid = (lo + hi) // 2
            new = math.ldexp(v, int(math.copysign(mid, exp)) - exp)
            candidate = attempt(current, v, new)
            if candidate is not None and (yield candidate):
                current, v, hi = candidate, new, mid
            else:
                lo = mid + 1
        bits = _sig_bits(v)
        if bits > 2:  # as long, fewest bits set: 1.00...01 x 2^e
            exp = math.frexp(v)[1] - 1
            candidate = attempt(current, v, math.copysign(math.ldexp(1.0 + 2.0 ** (1 - bits), exp), v))
            if candidate is not None and (yield candidate):
                current = candidate
        return current

    @staticmethod
    def _constants(v: float, present: np.ndarray) -> list[float]:
        out = [0.0, math.copysign(1.0, v), -math.copysign(1.0, v)]
        if math.isfinite(v) and v != 0:
            exp = math.floor(math.log2(abs(v)))
            out += [math.copysign(2.0**exp, v), math.copysign(2.0 ** (exp + 1), v), abs(v)]
        bits = np.float64(v).view(np.int64)
        others = [float(u) for u in present if np.float64(u).view(np.int64) != bits]
        if others:
            out.append(others[int(np.argmin(value_cost(np.array(others))))])
            below = [u for u in others if u < v]
            above = [u for u in others if u > v]
            out += ([max(below)] if below else []) + ([min(above)] if above else [])
        return [u for u in dict.fromkeys(out) if not math.isnan(u)]


SCHEDULE: tuple = (
    DropOutputs(),
    CutNodes(),
    BypassNodes(),
    MergeInputs(),
    ReduceSamples(),
    FocusWorst(),
    ShrinkShapes(),
    UnifyDtypes(),
    SimplifyValues(),
)
