"""Passes over the graph: fewer outputs, fewer nodes, fewer inputs."""

from __future__ import annotations

from numfuzz.corpus.case import Case, stored_signature
from numfuzz.corpus.size_order import smaller
from numfuzz.program.graph_edit import cone, replace_uses, sinks, with_outputs
from numfuzz.program.ops import infer_specs
from numfuzz.reduce.case_edit import all_second_values, all_values, cut_nodes, rebuild
from numfuzz.reduce.ddmin import ddmin
from numfuzz.reduce.passes.hints import flagged_element
from numfuzz.reduce.shrinker import Candidates


class DropOutputs:
    """Keep only the worst output; else drop outputs one at a time."""

    name = "drop-outputs"

    def candidates(self, case: Case) -> Candidates:
        current = case
        flagged = flagged_element(current)
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
                    memo[digest] = (all_values(c), all_second_values(c))
                except Exception:  # eager on the CPU can refuse what ran on the device: no cuts then
                    memo[digest] = None
            if memo[digest] is None:
                return None
            keep_set = set(kept)
            cut_set = set(range(len(c.graph.nodes))) - keep_set
            values, second = memo[digest]
            return cut_nodes(c, values, cut_set, sinks(c.graph, keep_set), second)

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
        flagged = flagged_element(case)
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
