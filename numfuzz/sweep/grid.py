"""The cells a model sweep judges: each model across targets, precisions, modes (forward, a training step) and sequence lengths.

A cell is one `numfuzz model` run. Its key names it the same way in every interpreter, so that a
rerun skips the cells a results file holds and two sweeps' results line up cell by cell
(`sweep.compare`). A model with one size (ViT's image; a user's FUNCTION without a `positions`
parameter) has one cell per target, precision and mode, with no length.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass

# a precision: (the dtype the model is cast to, the autocast dtype it runs under, or None)
PRECISIONS: dict[str, tuple[str, str | None]] = {
    "bf16": ("bf16", None),
    "fp16": ("fp16", None),
    "fp32-autocast-bf16": ("fp32", "bf16"),
    "fp32-autocast-fp16": ("fp32", "fp16"),
}
MODES = ("forward", "train")
# inductor as shipped and with one option of the configuration space that changes what it rounds (numfuzz/data/compiler_configs.toml),
# Thunder through Dynamo, and Thunder's own front end
DEFAULT_TARGETS = ("inductor", "inductor:emulate_precision_casts=1", "thunderfx:torchcompile", "thunder:torchcompile")
DEFAULT_PRECISIONS = ("bf16", "fp16", "fp32-autocast-bf16")
DEFAULT_POSITIONS = (32, 16)  # the second length: the shapes one compiled model sees change
ONE_SIZE = 0  # a cell's positions where the model has one size


class GridError(ValueError):
    """A sweep asked for something that names no cell; the message is one line for the user."""


@dataclass(frozen=True)
class Cell:
    model: str  # hf:ARCH or FILE.py:FUNCTION
    target: str
    precision: str  # a key of PRECISIONS
    mode: str  # "forward" or "train"
    positions: int = ONE_SIZE

    @property
    def key(self) -> str:
        return f"{self.model} | {self.target} | {self.precision} | {self.mode} | {self.positions or '-'}"

    @property
    def dtype(self) -> str:
        return PRECISIONS[self.precision][0]

    @property
    def autocast(self) -> str | None:
        return PRECISIONS[self.precision][1]

    @property
    def name(self) -> str:
        """The model's short name: the architecture, or the function."""
        return self.model.removeprefix("hf:") if self.model.startswith("hf:") else self.model.rpartition(":")[2]

    def file_stem(self) -> str:
        """The cell's key as a file name."""
        text = f"{self.name}-{self.target}-{self.precision}-{self.mode}-{self.positions or 'one'}"
        return "".join(c if c.isalnum() or c in "-_.=" else "_" for c in text)

    def to_json(self) -> dict:
        return {"model": self.model, "target": self.target, "precision": self.precision, "mode": self.mode, "positions": self.positions}

    @staticmethod
    def from_json(data: dict) -> Cell:
        return Cell(str(data["model"]), str(data["target"]), str(data["precision"]), str(data["mode"]), int(data.get("positions") or ONE_SIZE))


def zoo_models(modalities: tuple[str, ...] = ()) -> list[str]:
    """Every architecture `numfuzz model` builds: numfuzz's own small configurations, then every model type the zoo's table
    says is built (`numfuzz models --list`), in an order no family clusters in; with `modalities`, those of them only (by the table)."""
    from numfuzz.model.hf_zoo.catalog import CatalogError, load_catalog
    from numfuzz.model.spec import HF_CONFIGS  # imports torch: not for `numfuzz ops`, which loads the command line

    try:
        built = {r["type"]: r.get("modality", "") for r in load_catalog().built}
    except CatalogError:
        built = {}
    # the zoo's in a fixed order that is no family's (a hash of the name): a sweep its budget cuts short has judged a fair sample
    ordered = list(HF_CONFIGS) + sorted((t for t in built if t not in HF_CONFIGS), key=lambda t: hashlib.sha256(t.encode()).hexdigest())
    return [f"hf:{t}" for t in ordered if not modalities or built.get(t, "vision" if t == "vit" else "text") in modalities]


def lengths_of(model: str, positions: tuple[int, ...]) -> tuple[int, ...]:
    """The sequence lengths a model is swept at: `positions`, or one size where it has one (an image, audio)."""
    if model == "hf:vit":
        return (ONE_SIZE,)
    if model.startswith("hf:"):
        return positions if _takes_ids(model.removeprefix("hf:")) else (ONE_SIZE,)
    return positions if _takes_positions(model) else (ONE_SIZE,)


def _takes_ids(arch: str) -> bool:
    """Whether an architecture's inputs hold token ids, by the zoo's table (numfuzz's own configurations all do but ViT)."""
    from numfuzz.model.hf_zoo.catalog import CatalogError, load_catalog

    try:
        row = load_catalog().row(arch)
    except CatalogError:
        row = None
    return row is None or not row.get("built") or "input_ids" in row.get("inputs", []) or "decoder_input_ids" in row.get("inputs", [])


def _takes_positions(model: str) -> bool:
    import sys
    from pathlib import Path

    from numfuzz.user_code import load_user_code

    file, _, function = model.rpartition(":")
    try:
        load_user_code(file)
    except Exception as exc:
        raise GridError(f"{file}: {type(exc).__name__}: {exc}") from None
    make = getattr(sys.modules.get(Path(file).stem), function, None)
    if not callable(make):
        raise GridError(f"{file} has no function {function}")
    return "positions" in inspect.signature(make).parameters


def build_grid(models: list[str], targets: list[str], precisions: list[str], modes: list[str], positions: tuple[int, ...]) -> list[Cell]:
    """Every cell, model by model (so that a sweep cut short by its budget has whole models where it can)."""
    from numfuzz.model.spec import is_hf_architecture

    for name in precisions:
        if name not in PRECISIONS:
            raise GridError(f"unknown precision {name!r}; known: {', '.join(PRECISIONS)}")
    for model in models:
        if not model.startswith("hf:") and ":" not in model:
            raise GridError(f"{model}: a model is hf:ARCH or FILE.py:FUNCTION")
        if model.startswith("hf:") and not is_hf_architecture(model.removeprefix("hf:")):
            raise GridError(f"{model}: unknown architecture: neither numfuzz's own nor a model type transformers registers (numfuzz models --list)")
    return [
        Cell(model, target, precision, mode, length)
        for model in models
        for length in lengths_of(model, positions)
        for mode in modes
        for precision in precisions
        for target in targets
    ]
