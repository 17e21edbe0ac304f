"""Cases on disk: one JSON file per case, named by content hash, schema-versioned, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from numfuzz.ir import Graph, GraphError, canonical_json
from numfuzz.ops import infer_specs
from numfuzz.values import BitsError, Recipe, decode, encode

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
    def from_tensors(graph: Graph, samples: list[list[torch.Tensor]], target: str, **kwargs: Any) -> "Case":
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
    def from_json(data: Any) -> "Case":
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


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder, fsync, then rename: never a torn file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_case(case: Case, directory: Path, stem: str | None = None) -> Path:
    path = Path(directory) / f"{stem or case.content_hash()[:16]}.json"
    write_atomic(path, json.dumps(case.to_json(), indent=1, sort_keys=True, allow_nan=False) + "\n")
    return path


def load_case(path: Path | str) -> Case:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise CaseError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseError(f"{path}: not valid JSON (truncated or corrupt?): {exc.msg} at line {exc.lineno}") from None
    try:
        return Case.from_json(data)
    except CaseError as exc:
        raise CaseError(f"{path}: {exc}") from None


def iter_cases(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.json") if not p.name.startswith("."))
