"""A case: a graph, its exact input values (bit patterns) and target, with provenance and its recorded result."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import torch

from numfuzz.judge.execute import Outcome
from numfuzz.judge.signature import Signature, signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, GraphError, canonical_json
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import BitsError, Recipe, decode, encode

SCHEMA_VERSION = 1


class CaseError(ValueError):
    """A case file that cannot be used; the message is one line for the user."""


@dataclass
class Case:
    graph: Graph
    samples: list[list[str]]  # per sample, per input: base64 of the little-endian bit patterns
    target: str
    recipes: list[Recipe] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None  # the Outcome as recorded when the case was saved
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. minimisation notes, signature

    @staticmethod
    def from_tensors(graph: Graph, samples: list[list[torch.Tensor]], target: str, **kwargs: Any) -> Case:
        return Case(graph, [[encode(t) for t in sample] for sample in samples], target, **kwargs)

    def tensors(self) -> list[list[torch.Tensor]]:
        try:
            return [[decode(text, spec) for text, spec in zip(sample, self.graph.inputs)] for sample in self.samples]
        except BitsError as exc:
            raise CaseError(str(exc)) from None

    def content_hash(self) -> str:
        body = {"graph": self.graph.to_json(), "samples": self.samples, "target": self.target}
        return hashlib.sha256(canonical_json(body).encode()).hexdigest()

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA_VERSION,
            "graph": self.graph.to_json(),
            "samples": self.samples,
            "target": self.target,
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
        if schema > SCHEMA_VERSION:
            raise CaseError(f"case schema {schema} is newer than this numfuzz understands ({SCHEMA_VERSION}); upgrade numfuzz")
        try:
            graph = Graph.from_json(data["graph"])
            infer_specs(graph)  # unknown ops and ill-typed graphs fail here, not mid-run
            samples = [[str(x) for x in sample] for sample in data["samples"]]
            if not samples or any(len(s) != len(graph.inputs) for s in samples):
                raise CaseError(f"samples do not match the graph's {len(graph.inputs)} inputs")
            return Case(
                graph,
                samples,
                str(data["target"]),
                [Recipe.from_json(r) for r in data.get("recipes", [])],
                dict(data.get("provenance", {})),
                data.get("result"),
                dict(data.get("extra", {})),
            )
        except GraphError as exc:
            raise CaseError(f"bad graph: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CaseError):
                raise
            raise CaseError(f"malformed case: {type(exc).__name__} {exc}") from None


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
    return signature_of(case.target, recorded_outcome(case))


def recorded_outcome(case: Case) -> Outcome:
    """The outcome stored with the case; invalid when there is none or it does not parse."""
    try:
        return Outcome.from_json(case.result) if isinstance(case.result, dict) else Outcome(Verdict.INVALID)
    except (KeyError, TypeError, ValueError):
        return Outcome(Verdict.INVALID, "unreadable recorded result")
