"""What the causes and the measurements read: the case, its outcome with its runs, and one cached view of the culprit.

The culprit view (`Evidence.side`, `Evidence.reference_of`) is computed once per analysis: each
side's inputs of the culprit op and its values there, and the op's float64 reference compiled
once and run once on each side's inputs. The causes (`judge.causes`), the rounding-error record
(`judge.rounding_error`) and the probes of a non-finite result all read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from numfuzz.judge.compiled import as_reference
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import Culprit
from numfuzz.judge.localize import Probe, Suffix
from numfuzz.program.dtypes import is_integer, is_narrow
from numfuzz.program.ir import Graph, Node
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target

SIDES = ("target", "eager")


@dataclass
class Evidence:
    """What the tests read: the case, its outcome with its runs, the flagged output and the culprit."""

    graph: Graph
    samples: list[list[torch.Tensor]]
    target: Target
    device: str
    outcome: Outcome
    output: int
    culprit: Culprit | None = None
    probe: Probe | None = None
    suffix: Suffix | None = None  # located by cutting: the culprit's tests run on this suffix as one op
    upstream: list[list[torch.Tensor]] | None = None  # with gradients: each sample's, per output (a compiler may lower ops otherwise)
    _cache: dict = field(default_factory=dict, repr=False)

    def alone(self) -> Graph:
        """The culprit op with its arguments as inputs, or the suffix that cutting found (taken as one op)."""
        if self.suffix is not None:
            return self.suffix.graph
        node, specs = self.graph.nodes[self.culprit.node], infer_specs(self.graph)
        return Graph(tuple(specs[a] for a in node.args), (Node(node.op, tuple(range(len(node.args))), node.attrs),), (len(node.args),))

    def alone_output(self) -> int:
        """The culprit's position among `alone()`'s outputs."""
        return self.suffix.output if self.suffix is not None else 0

    def side(self, who: str) -> tuple[list[list[torch.Tensor]], list[torch.Tensor]]:
        """Per sample: `who`'s inputs of the culprit op and its value there (cached)."""
        key = ("side", who)
        if key not in self._cache:
            self._cache[key] = self._side(who)
        return self._cache[key]

    def reference_fn(self) -> Callable:
        """The culprit op alone in float64, compiled once."""
        if "reference_fn" not in self._cache:
            self._cache["reference_fn"] = compile_source(lower(self.alone(), reference=True))
        return self._cache["reference_fn"]

    def reference_of(self, who: str) -> list[np.ndarray]:
        """Per sample: the op in float64 on `who`'s own inputs, flat (cached)."""
        key = ("reference", who)
        if key not in self._cache:
            fn, out = self.reference_fn(), self.alone_output()
            with torch.no_grad():
                self._cache[key] = [fn(*as_reference(args))[out].reshape(-1).numpy() for args in self.side(who)[0]]
        return self._cache[key]

    def _side(self, who: str) -> tuple[list[list[torch.Tensor]], list[torch.Tensor]]:
        if self.suffix is not None:  # fed eager's values on both sides; its output stands for the culprit's value
            return self.suffix.samples, [run[self.suffix.output] for run in getattr(self.suffix.outcome.runs, who)]
        k = self.culprit.node
        n_in = len(self.graph.inputs)

        def value(v: int) -> list[torch.Tensor]:
            if v < n_in:
                return [sample[v] for sample in self.samples]
            if v == self.graph.outputs[self.output]:  # the flagged output as the case computed it, not as probed
                return [run[self.output] for run in getattr(self.outcome.runs, who)]
            return [run[self.probe.nodes.index(v - n_in)] for run in getattr(self.probe.runs, who)]

        args = [value(a) for a in self.graph.nodes[k].args]
        return [[arg[s] for arg in args] for s in range(len(self.samples))], value(n_in + k)

    def inputs_made_narrow(self) -> bool:
        """Every float input of the culprit (located by the probe) is a bf16/fp16 value the program made, not one it was
        given: a fused kernel may read such inputs before their rounding (`rounding_record.UNROUNDED_INPUT_ULP`)."""
        if self.suffix is not None or self.culprit is None:  # a cut's inputs are given values: nothing to fuse across
            return False
        return inputs_made_narrow(self.graph, self.culprit.node)

    def inputs_seen(self) -> bool:
        """Were the culprit's inputs seen? Without a probe or a cut, only the case's own inputs are."""
        c = self.culprit
        if c is None:
            return False
        return self.suffix is not None or self.probe is not None or all(a < len(self.graph.inputs) for a in self.graph.nodes[c.node].args)


def inputs_made_narrow(graph: Graph, node: int) -> bool:
    """Every float input of node `node` is a bf16/fp16 value the program made, not one it was given (a stored case's
    record is judged again by it too: `corpus.rejudge`)."""
    specs, n_in = infer_specs(graph), len(graph.inputs)
    floats = [a for a in graph.nodes[node].args if not is_integer(specs[a].dtype)]
    return bool(floats) and all(a >= n_in and is_narrow(specs[a].dtype) for a in floats)


def op_line(graph: Graph, k: int) -> str:
    """Node k as a line of the program: `t3 = pow(x0, t1, exponent=2.0)`."""
    node = graph.nodes[k]
    attrs = "".join(f", {key}={value!r}" for key, value in node.attrs)
    n_in = len(graph.inputs)
    args = ", ".join(f"x{a}" if a < n_in else f"t{a - n_in}" for a in node.args)
    return f"t{k} = {node.op}({args}{attrs})"
