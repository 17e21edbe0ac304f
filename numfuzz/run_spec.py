"""The run specification: how a case's program is compiled and run. One typed, immutable value, stored with the case.

A campaign makes one per target; a worker gets it whole; replay, minimise, repro and report
read nothing else to run a case again. A mode added later (gradients, dynamic shapes, a
compiler configuration) is a field here whose default means today's behaviour, so every case
file written before it still loads with the meaning it had. Torch-free, so the CLI can show it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Union

from numfuzz.share_table import defaults_of

# Input samples per compiled graph, and the input search's share of them: the measurements
# behind both numbers are in numfuzz.campaign.defaults.
DEFAULT_SAMPLES = 64
# Samples of a case whose gradients a campaign's mix drew (`--grad-share`): each costs eager's, the float64 reference's
# and the compiled forward and backward; `--grad` campaigns keep `--samples`. Measured in numfuzz.campaign.defaults.
GRAD_SAMPLES = 16
DEFAULT_SEARCH = 0.125
MAX_SEARCH = 16.0
DEVICE_KINDS = ("cpu", "cuda")
# How sizes reach the compiler: as constants (torch.compile's dynamic=False, as before this field
# existed), all symbolic (dynamic=True), symbolic only in the dims `marked` names (mark_dynamic), or
# torch.compile's default (dynamic=None, "automatic"): static first, symbolic after a size changes.
DYNAMIC_MODES = ("static", "dynamic", "marked", "automatic")
OptionValue = Union[bool, int, float, str]


class RunSpecError(ValueError):
    """A run specification that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class RunSpec:
    target: str  # the target spec, as `numfuzz targets` lists it (options included)
    device: str | None = None  # None: the machine's default (CUDA when present); case files before the run spec say nothing
    samples: int = DEFAULT_SAMPLES  # random input samples drawn per compiled graph (a stored case holds its own)
    search: float = 0.0  # extra runs spent searching for worse inputs, as a share of `samples` (numfuzz.search); 0: off
    imports: tuple[str, ...] = ()  # --import modules and files the target needs; repro scripts import them too
    grad: bool = False  # also judge the gradients of every input, for upstream gradients stored with the case
    dynamic: str = "static"  # one of DYNAMIC_MODES
    marked: tuple[tuple[int, int], ...] = ()  # (input, dim) pairs marked dynamic; only with dynamic="marked"
    # compiler options drawn for the case, by name (numfuzz/data/compiler_configs.toml); stored under "config", as cases always were
    compiler_options: tuple[tuple[str, OptionValue], ...] = ()
    # torch's intra-op threads while the case compiles and runs (0: the worker's own, cores / workers). Inductor's
    # CPU code is generated for this count (parallel loops and per-thread partial reductions), so it is part of the case.
    threads: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not self.target:
            raise RunSpecError("a run needs a target spec")
        if self.device is not None and (not isinstance(self.device, str) or self.device.split(":")[0] not in DEVICE_KINDS):
            raise RunSpecError(f"unknown device {self.device!r}: expected cpu or cuda[:N]")
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or self.samples < 1:
            raise RunSpecError(f"samples must be a positive integer, not {self.samples!r}")
        if isinstance(self.search, bool) or not isinstance(self.search, (int, float)) or not 0.0 <= self.search <= MAX_SEARCH:
            raise RunSpecError(f"search is a share of the samples, between 0 and {MAX_SEARCH:g}, not {self.search!r}")
        if not all(isinstance(x, str) for x in self.imports):
            raise RunSpecError("imports must be module names or file paths")
        if not isinstance(self.grad, bool):
            raise RunSpecError(f"grad is true or false, not {self.grad!r}")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 0:
            raise RunSpecError(f"threads is a count of intra-op threads (0: the worker's own), not {self.threads!r}")
        object.__setattr__(self, "imports", tuple(self.imports))
        self._check_modes()

    def _check_modes(self) -> None:
        if self.dynamic not in DYNAMIC_MODES:
            raise RunSpecError(f"dynamic is one of {', '.join(DYNAMIC_MODES)}, not {self.dynamic!r}")
        pairs = [tuple(p) for p in self.marked] if all(isinstance(p, (tuple, list)) for p in self.marked) else [()]
        if any(len(p) != 2 or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in p) for p in pairs):
            raise RunSpecError(f"marked holds (input, dim) pairs of non-negative integers, not {self.marked!r}")
        marked = tuple(sorted(set(pairs)))
        if (self.dynamic == "marked") != bool(marked):
            raise RunSpecError("marked dims go with dynamic='marked', and it needs at least one")
        object.__setattr__(self, "marked", marked)
        try:
            options = dict(self.compiler_options.items() if isinstance(self.compiler_options, dict) else self.compiler_options)
        except (TypeError, ValueError):
            raise RunSpecError(f"config maps option names to values, not {self.compiler_options!r}") from None
        for key, value in options.items():
            if not isinstance(key, str) or not key or not isinstance(value, (bool, int, float, str)):
                raise RunSpecError(f"config maps option names to a bool, number or string, not {key!r}: {value!r}")
        object.__setattr__(self, "compiler_options", tuple(sorted(options.items())))

    @property
    def options(self) -> dict[str, OptionValue]:
        """The drawn compiler options, as a dict."""
        return dict(self.compiler_options)

    @property
    def default_compile(self) -> bool:
        """Static sizes, no drawn options and one thread or the worker's: how every case compiled before these fields existed."""
        return self.dynamic == "static" and not self.compiler_options and self.threads <= 1

    def compile_label(self, dims: bool = False) -> str:
        """How the case compiles, in a few words ("" for static sizes and the default options): signatures show it.

        `dims`: name the marked dims too (`marked x0.1`), as a case's own description does."""
        marks = " " + ",".join(f"x{i}.{d}" for i, d in self.marked) if dims else ""
        parts = [] if self.dynamic == "static" else [self.dynamic + (marks if self.dynamic == "marked" else "")]
        parts += [f"{k}={_option_text(v)}" for k, v in self.compiler_options]
        parts += [f"threads={self.threads}"] if self.threads > 1 else []
        return " ".join(parts)

    @property
    def device_kind(self) -> str:
        """cpu or cuda: whose vector widths and bounds apply."""
        return "cuda" if (self.device or "cpu").startswith("cuda") else "cpu"

    def with_changes(self, **changes: Any) -> RunSpec:
        return replace(self, **changes)

    def hashed(self) -> dict[str, Any]:
        """What a case's content hash covers besides the target: the fields that change what a run computes.

        The device, samples, search and imports say where and how thoroughly a case ran, not
        what its program is, so a case keeps its name wherever it is replayed; gradients are
        another program (the backward), so they count, and so do symbolic sizes and compiler options.
        Each is left out at its default, so that a case written before it keeps its name.
        """
        hashed: dict[str, Any] = {"grad": True} if self.grad else {}
        return {**hashed, **self._modes_json()}

    def _modes_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.dynamic != "static":
            data["dynamic"] = self.dynamic
        if self.marked:
            data["marked"] = [list(pair) for pair in self.marked]
        if self.compiler_options:
            data["config"] = dict(self.compiler_options)
        if self.threads:
            data["threads"] = self.threads
        return data

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if k not in ("dynamic", "marked", "compiler_options", "threads")}
        data["imports"] = list(self.imports)
        return {**data, **self._modes_json()}  # the new fields only where not default: older files stay as they were

    @staticmethod
    def from_json(data: Any) -> RunSpec:
        if not isinstance(data, dict):
            raise RunSpecError("the run specification is not an object")
        unknown = set(data) - (set(RunSpec.__dataclass_fields__) - {"compiler_options"} | {"config"})  # stored as "config"
        if unknown:
            raise RunSpecError(f"the run specification has unknown fields: {', '.join(sorted(unknown))}; a newer numfuzz wrote it")
        if "target" not in data:
            raise RunSpecError("the run specification names no target")
        marked, config = data.get("marked", ()), data.get("config", {})
        if not isinstance(marked, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in marked):
            raise RunSpecError(f"marked holds (input, dim) pairs, not {marked!r}")
        if not isinstance(config, dict):
            raise RunSpecError("config is an object of option names and values")
        try:
            fields = {k: v for k, v in data.items() if k != "config"}
            return RunSpec(
                **{**fields, "imports": tuple(data.get("imports", ())), "marked": tuple(tuple(p) for p in marked), "compiler_options": tuple(config.items())}
            )
        except TypeError as exc:
            raise RunSpecError(f"malformed run specification: {exc}") from None


def _option_text(value: OptionValue) -> str:
    return str(int(value)) if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class RunMix:
    """A campaign's shares of cases drawn with symbolic sizes and with compiler options (numfuzz.corpus.make draws them).

    Each share is a chance per case: `dynamic` for dynamic=True, `marked` for dims marked dynamic,
    `automatic` for torch.compile's default (dynamic=None), `config_share` for options drawn from the
    target's configuration space (independent of the sizes; `RunSpec.compiler_options` holds the options drawn). All zero: every case static with the
    default options, as before the mix existed.
    """

    dynamic: float = 0.0
    marked: float = 0.0
    config_share: float = 0.0
    automatic: float = 0.0
    thread_share: float = 0.0  # chance that a case runs with `thread_count` intra-op threads
    thread_count: int = 1
    grad_share: float = 0.0  # chance that a case judges its gradients too, as --grad (`RunSpec.grad`) does for every case

    def __post_init__(self) -> None:
        if isinstance(self.thread_count, bool) or not isinstance(self.thread_count, int) or self.thread_count < 1:
            raise RunSpecError(f"the thread count is a positive integer, not {self.thread_count!r}")
        for name in defaults_of("mix"):  # every share of the table's that is the run mix's
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise RunSpecError(f"the {name} share is a chance, between 0 and 1, not {value!r}")
        if self.dynamic + self.marked + self.automatic > 1.0:
            raise RunSpecError(f"the dynamic, marked and automatic shares add up to more than 1 ({self.dynamic:g} + {self.marked:g} + {self.automatic:g})")

    @classmethod
    def default(cls, cores: int) -> RunMix:
        """The run mix `numfuzz fuzz` draws by default (the shares table, `numfuzz.share_table`), with `cores` threads for its threaded cases."""
        return cls(**defaults_of("mix"), thread_count=cores)

    @property
    def off(self) -> bool:
        return not (self.dynamic or self.marked or self.config_share or self.automatic or self.grad_share or (self.thread_share and self.thread_count > 1))
