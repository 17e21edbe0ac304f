"""A case: a graph, its exact input values (bit patterns) and its run specification, with provenance and its recorded result."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import torch

from numfuzz.judge.execute import Outcome
from numfuzz.judge.signature import Signature, signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import is_integer
from numfuzz.program.ir import Graph, GraphError, canonical_json
from numfuzz.program.ops import infer_specs
from numfuzz.program.scalars import has_second_call, second_call
from numfuzz.program.valid_inputs import input_problem
from numfuzz.program.sizes import with_input_shapes
from numfuzz.program.values import BitsError, Recipe, decode, encode
from numfuzz.run_spec import RunSpec, RunSpecError

# 2: the run specification (`run`) replaces `target`; a schema-1 file loads as a run spec with
# its target, the machine's default device, its own sample count and no search, as it ran then.
SCHEMA_VERSION = 2
# 3: an input may be strided (`layout`) or integer (`i64`); written only for such cases, so an older
# numfuzz refuses them (instead of running a strided input contiguous) and every other case stays 2.
INPUTS_SCHEMA = 3


class CaseError(ValueError):
    """A case file that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class SecondSize:
    """A dynamic compile's second size: the inputs' shapes there, and its samples' bits (as `Case.samples`).

    The program is the case's own (same nodes and attributes); only the varying dims differ.
    """

    shapes: tuple[tuple[int, ...], ...]
    samples: tuple[tuple[str, ...], ...]

    def to_json(self) -> dict:
        return {"shapes": [list(s) for s in self.shapes], "samples": [list(row) for row in self.samples]}

    @staticmethod
    def from_json(data: Any) -> SecondSize:
        if not isinstance(data, dict) or not isinstance(data.get("shapes"), list) or not isinstance(data.get("samples"), list):
            raise CaseError("malformed case: second_size needs shapes and samples")
        return SecondSize(tuple(tuple(int(n) for n in s) for s in data["shapes"]), tuple(tuple(str(x) for x in row) for row in data["samples"]))


@dataclass
class Case:
    graph: Graph
    samples: list[list[str]]  # per sample, per input: base64 of the little-endian bit patterns
    run: RunSpec  # how it is compiled and run; a bare target spec means that target's default run
    recipes: list[Recipe] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None  # the Outcome as recorded when the case was saved
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. minimisation notes, signature
    # with gradients on (run.grad): per sample, per output, the upstream gradient's bits
    grads: list[list[str]] = field(default_factory=list)
    second: SecondSize | None = None  # a dynamic compile's second size (numfuzz.judge.second_size)

    def __post_init__(self) -> None:
        if isinstance(self.run, str):
            self.run = RunSpec(self.run)

    @property
    def target(self) -> str:
        return self.run.target

    @staticmethod
    def from_tensors(
        graph: Graph, samples: list[list[torch.Tensor]], run: RunSpec | str, grads: list[list[torch.Tensor]] | None = None, **kwargs: Any
    ) -> Case:
        encoded = [[encode(t) for t in row] for row in grads or []]
        return Case(graph, [[encode(t) for t in sample] for sample in samples], run, grads=encoded, **kwargs)

    def with_run(self, run: RunSpec) -> Case:
        """The same case under another run specification (a target or device given on the command line)."""
        second = self.second if run.dynamic != "static" else None
        return Case(self.graph, self.samples, run, self.recipes, self.provenance, self.result, self.extra, self.grads, second)

    @property
    def kinds(self) -> list[str]:
        """What the case was drawn as, for a campaign's counts: "gradients" (it judges them), "model" (a window of a real model's graph)."""
        return (["gradients"] if self.run.grad else []) + (["model"] if "zoo" in self.provenance else [])

    @property
    def has_second_call(self) -> bool:
        """Whether the compiled program is called a second time: at a second size, or with second scalar values, or both."""
        return self.second is not None or has_second_call(self.graph)

    def second_graph(self) -> Graph | None:
        """The program of the second call (its second size's shapes, its passed scalars' second values), or None without one."""
        if not self.has_second_call:
            return None
        graph = self.graph
        if self.second is not None:
            graph = with_input_shapes(self.graph, self.second.shapes)
            if graph is None:
                raise CaseError("second_size: the program is not well typed at the second size's shapes")
        return second_call(graph)

    def second_tensors(self) -> list[list[torch.Tensor]]:
        """The second call's samples, per sample and input (the first size's when only scalars change); [] without one."""
        graph = self.second_graph()
        if graph is None:
            return []
        if self.second is None:
            return self.tensors()
        try:
            return [[decode(text, spec) for text, spec in zip(row, graph.inputs)] for row in self.second.samples]
        except BitsError as exc:
            raise CaseError(f"second_size: {exc}") from None

    def grad_tensors(self) -> list[list[torch.Tensor]] | None:
        """The upstream gradients, per sample and output; None without gradients."""
        if not self.run.grad:
            return None
        specs = infer_specs(self.graph)
        try:
            return [[decode(text, specs[o]) for text, o in zip(row, self.graph.outputs)] for row in self.grads]
        except BitsError as exc:
            raise CaseError(f"upstream gradients: {exc}") from None

    def second_grad_tensors(self) -> list[list[torch.Tensor]] | None:
        """The second call's upstream gradients, per sample and output; None without gradients or a second call. The
        first call's, each tiled to its output's second shape (the same where only scalars change), sample by sample
        in turn: the gradients that flow back are drawn once, and the second call asks only what the compile does with them."""
        first, graph = self.grad_tensors(), self.second_graph()
        if first is None or graph is None:
            return None
        specs = infer_specs(graph)
        shapes = [specs[o].shape for o in graph.outputs]
        rows = []
        for i in range(len(self.second_tensors())):
            row = first[i % len(first)]
            rows.append([g.reshape(-1).repeat(-(-max(1, _numel(s)) // max(1, g.numel())))[: _numel(s)].reshape(s) for g, s in zip(row, shapes)])
        return rows

    def tensors(self) -> list[list[torch.Tensor]]:
        try:
            return [[decode(text, spec) for text, spec in zip(sample, self.graph.inputs)] for sample in self.samples]
        except BitsError as exc:
            raise CaseError(str(exc)) from None

    def content_hash(self) -> str:
        body: dict[str, Any] = {"graph": self.graph.to_json(), "samples": self.samples, "target": self.target}
        if self.run.hashed():
            body["run"] = self.run.hashed()
        if self.grads:
            body["grads"] = self.grads
        if self.second is not None:
            body["second_size"] = self.second.to_json()
        return hashlib.sha256(canonical_json(body).encode()).hexdigest()

    def to_json(self) -> dict:
        return {
            "schema": INPUTS_SCHEMA if any(spec.layout is not None or is_integer(spec.dtype) for spec in self.graph.inputs) else SCHEMA_VERSION,
            "graph": self.graph.to_json(),
            "samples": self.samples,
            "run": self.run.to_json(),
            **({"grads": self.grads} if self.run.grad else {}),
            **({"second_size": self.second.to_json()} if self.second is not None else {}),
            "recipes": [r.to_json() for r in self.recipes],
            "provenance": self.provenance,
            "result": self.result,
            "extra": self.extra,
        }

    @staticmethod
    def from_json(data: Any) -> Case:
        if not isinstance(data, dict):
            raise CaseError("not a numfuzz case: the top level is not an object")
        schema = data.get("schema")
        if not isinstance(schema, int):
            raise CaseError("not a numfuzz case: no schema version")
        if schema > INPUTS_SCHEMA:
            raise CaseError(f"case schema {schema} is newer than this numfuzz understands ({INPUTS_SCHEMA}); upgrade numfuzz")
        try:
            graph = Graph.from_json(data["graph"])
            infer_specs(graph)  # unknown ops and ill-typed graphs fail here, not mid-run
            samples = [[str(x) for x in sample] for sample in data["samples"]]
            if not samples or any(len(s) != len(graph.inputs) for s in samples):
                raise CaseError(f"samples do not match the graph's {len(graph.inputs)} inputs")
            _check_values(graph, samples)
            provenance = dict(data.get("provenance", {}))
            run = RunSpec.from_json(data["run"]) if schema >= 2 else _schema1_run(data, provenance, len(samples))
            grads = _upstream_gradients(data, run, graph, len(samples))
            case = Case(
                graph,
                samples,
                run,
                [Recipe.from_json(r) for r in data.get("recipes", [])],
                provenance,
                data.get("result"),
                dict(data.get("extra", {})),
                grads,
                _second_size(data, run, graph),
            )
            case.second_tensors()  # bits that do not match the second size's shapes fail here
            if case.second is not None:
                _check_values(case.second_graph(), [list(row) for row in case.second.samples], "second_size: ")
            return case
        except RunSpecError as exc:
            raise CaseError(f"bad run specification: {exc}") from None
        except GraphError as exc:
            raise CaseError(f"bad graph: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CaseError):
                raise
            raise CaseError(f"malformed case: {type(exc).__name__} {exc}") from None


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for n in shape:
        count *= n
    return count


def _check_values(graph: Graph, samples: list[list[str]], where: str = "") -> None:
    """Indices in range and expanded inputs equal along their expanded dims, in every sample (only such graphs are decoded here)."""
    if not any(spec.layout is not None or is_integer(spec.dtype) for spec in graph.inputs):
        return
    for k, sample in enumerate(samples):
        try:
            problem = input_problem(graph, [decode(text, spec) for text, spec in zip(sample, graph.inputs)])
        except BitsError as exc:
            raise CaseError(f"{where}{exc}") from None
        if problem is not None:
            raise CaseError(f"{where}sample {k}: {problem}")


def _schema1_run(data: dict, provenance: dict[str, Any], samples: int) -> RunSpec:
    """A schema-1 case as it ran then: its target on the default device, every stored sample, its --import list."""
    imports = provenance.pop("imports", [])
    if not isinstance(imports, list):
        raise CaseError("malformed case: provenance.imports is not a list")
    drawn = max(samples - int(provenance.get("searched_samples", 0) or 0), 1)
    return RunSpec(str(data["target"]), samples=drawn, imports=tuple(str(x) for x in imports))


def _second_size(data: dict, run: RunSpec, graph: Graph) -> SecondSize | None:
    """The stored second size: only with symbolic sizes, one shape per input, at least one sample."""
    if "second_size" not in data:
        return None
    if run.dynamic == "static":
        raise CaseError("the case has a second size but its run specification compiles static sizes")
    second = SecondSize.from_json(data["second_size"])
    if len(second.shapes) != len(graph.inputs) or not second.samples or any(len(row) != len(graph.inputs) for row in second.samples):
        raise CaseError(f"second_size does not match the graph's {len(graph.inputs)} inputs")
    return second


def _upstream_gradients(data: dict, run: RunSpec, graph: Graph, samples: int) -> list[list[str]]:
    """The stored upstream gradients: one per output for every sample with gradients on, none without."""
    grads = data.get("grads")
    if not run.grad:
        if grads:
            raise CaseError("the case has upstream gradients but its run specification does not judge gradients")
        return []
    if not isinstance(grads, list) or len(grads) != samples or any(not isinstance(row, list) or len(row) != len(graph.outputs) for row in grads):
        raise CaseError(f"the upstream gradients do not match the case: expected {samples} samples of {len(graph.outputs)} outputs each")
    rows = [[str(x) for x in row] for row in grads]
    specs = infer_specs(graph)
    try:
        for row in rows:
            for text, o in zip(row, graph.outputs):
                decode(text, specs[o])
    except BitsError as exc:
        raise CaseError(f"the upstream gradients do not match the outputs: {exc}") from None
    return rows


def stored_signature(case: Case) -> Signature | None:
    data = case.extra.get("signature")
    try:
        return Signature.from_json(data) if isinstance(data, dict) else None
    except (KeyError, TypeError):
        return None


def recorded_signature(case: Case) -> Signature:
    """The stored signature, else an unlocated one from the recorded result (no compile)."""
    stored = stored_signature(case)
    if stored is not None:
        return stored
    return signature_of(case.target, recorded_outcome(case), case.run, case.graph)


def recorded_outcome(case: Case) -> Outcome:
    """The outcome stored with the case; invalid when there is none or it does not parse."""
    try:
        return Outcome.from_json(case.result) if isinstance(case.result, dict) else Outcome(Verdict.INVALID)
    except (KeyError, TypeError, ValueError):
        return Outcome(Verdict.INVALID, "unreadable recorded result")
