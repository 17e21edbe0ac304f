"""Lightning Thunder: `thunder.jit` with an executor list and options, or Thunder as torch.compile's backend."""

from __future__ import annotations

import importlib.util
from importlib import metadata
from typing import Callable

from numfuzz.run_spec import RunSpec
from numfuzz.targets.compile_modes import DYNAMO_COMPILES_SOURCE, MARK_DIMS_SOURCE, check_modes, dynamic_argument, dynamo_compiles, marking
from numfuzz.targets.options import parse_options, reset_dynamo, vector_elements
from numfuzz.targets.protocol import TargetError

NVFUSER_WHY = "nvFuser needs CUDA and the nvfuser package (pip install 'numfuzz[nvfuser]')"
# thunder.jit's symbolic sizes are all or nothing (its cache option); thunderfx is torch.compile,
# so Dynamo's per-dim marks work there.
# thunder.jit has no automatic mode: its default cache (constant values) recompiles for every new size.
# thunderfx is torch.compile with Thunder as its backend, and takes torch.compile's four.
JIT_MODES, FX_MODES = ("static", "dynamic"), ("static", "dynamic", "marked", "automatic")
SYMBOLIC_CACHE = "symbolic values"  # thunder.jit's cache option for symbolic sizes (0.2.6 calls it experimental)
# The transforms a drawn configuration may name (`transforms=a+b`), by class in thunder.transforms.
TRANSFORMS = {"constant_folding": "ConstantFolding"}


def thunder_import_error() -> str:
    """Why thunder does not import here ("" when it does): each release supports a range of torch versions."""
    try:
        import thunder  # noqa: F401
    except Exception as exc:  # an incompatible torch breaks thunder's import in many ways
        import torch

        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        return f"lightning-thunder {_installed('lightning-thunder')} does not import with torch {torch.__version__} ({type(exc).__name__}: {first})"
    return ""


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


class Thunder:
    """`thunder.jit` with an executor list and options: thunder:nvfuser,torch:nv_enable_linear=1"""

    # Its own code: an explicit refusal raised here is `unsupported`, not a crash (`judge.refusal`). Thunder's checks
    # raise from thunder.core.baseutils, its interpreter's from thunder.core.interpreter.
    own_code = ("thunder",)
    # Compiling several graphs together gains nothing here (thunder:torchcompile: 0.97x the seconds
    # per graph at 8 graphs a compile, torch 2.9.1 CPU), and a batch costs re-runs: one at a time.
    batch_default = 1

    def __init__(self, arg: str | None, fx: bool = False):
        self.fx = fx
        executors, _, opts = (arg or "").partition(":")
        self.executors = [e for e in executors.split(",") if e] or (["torchcompile"] if not fx else [])
        self.options = parse_options(opts)
        self.name = ("thunderfx" if fx else "thunder") + (f":{arg}" if arg else "")
        self.modes = FX_MODES if fx else JIT_MODES
        # What a campaign draws for it. thunder 0.2.6's symbolic values with the torchcompile executor
        # fail to compile even one sigmoid ("Failed to find an executor for bound symbol prims.eq(i0, 1)",
        # with or without the torch executor beside it): drawn, they would be crashes of an
        # experimental cache, not numerics. A case asking for them still compiles so (replay).
        self.drawn_modes = ("static",) if not fx and "torchcompile" in self.executors else self.modes
        self.dynamic = "static"
        self.marked: tuple[tuple[int, int], ...] = ()
        self.transforms: tuple[str, ...] = ()

    @property
    def compiler_behind(self) -> str:
        """The target whose code this one runs: thunderfx and the torchcompile executor hand their fusions to Inductor."""
        return "inductor" if self.fx or "torchcompile" in self.executors else ""

    def configured(self, run: RunSpec) -> Thunder:
        """This target with the run's size mode and drawn options (`transforms`, or options thunder.jit takes)."""
        check_modes(self.name, run, self.modes)
        copy = Thunder.__new__(Thunder)
        copy.__dict__.update(self.__dict__)
        options = run.options
        transforms = str(options.pop("transforms", ""))
        copy.transforms = tuple(t for t in transforms.split("+") if t)
        unknown = [t for t in copy.transforms if t not in TRANSFORMS]
        if unknown:
            raise TargetError(f"thunder has no transform {unknown[0]!r} numfuzz knows (known: {', '.join(TRANSFORMS)})")
        copy.options = {**self.options, **options}
        copy.dynamic, copy.marked = run.dynamic, run.marked
        return copy

    def _mode_kwargs(self) -> dict:
        if self.fx:  # torch.compile's own argument; marked dims are marked on a static compile
            return {"dynamic": dynamic_argument(self.dynamic)}
        return {} if self.dynamic == "static" else {"cache": SYMBOLIC_CACHE}

    def _transform_objects(self) -> list:
        import thunder.transforms

        return [getattr(thunder.transforms, TRANSFORMS[t])() for t in self.transforms]

    def available(self) -> tuple[bool, str]:
        if importlib.util.find_spec("thunder") is None:
            return False, "lightning-thunder is not installed (pip install 'numfuzz[thunder]')"
        why = thunder_import_error()
        if why:
            return False, why
        try:
            self._executor_objects()
        except TargetError as exc:
            return False, str(exc)
        if self.transforms:
            import thunder.transforms

            missing = [TRANSFORMS[t] for t in self.transforms if not hasattr(thunder.transforms, TRANSFORMS[t])]
            if missing:
                return False, f"this thunder has no thunder.transforms.{missing[0]}"
        return True, ""

    def _executor_objects(self) -> list:
        from thunder.extend import get_executor

        found = []
        for name in self.executors:
            ex = get_executor(name)
            if ex is None:
                if name == "nvfuser":
                    raise TargetError(f"executor 'nvfuser' is not registered: {NVFUSER_WHY}")
                raise TargetError(f"thunder has no executor {name!r} (register it with thunder.extend, via --import)")
            found.append(ex)
        return found

    def prepare(self, fn: Callable, device: str) -> Callable:
        executors = self._executor_objects()
        extra = {**self._mode_kwargs(), **({"transforms": self._transform_objects()} if self.transforms else {})}
        if self.fx:
            from thunder.dynamo import thunderfx

            kwargs = dict(self.options)
            if executors:
                kwargs["executors"] = executors
            compiled = thunderfx(fn, **kwargs, **extra)
            return marking(compiled, self.marked) if self.marked else compiled
        import thunder

        return thunder.jit(fn, executors=executors, **self.options, **extra)

    def compile_count(self, compiled: Callable) -> int | None:
        """thunderfx: Dynamo's graphs; thunder.jit: its cache misses (each one a compile)."""
        if self.fx:
            return dynamo_compiles()
        import thunder

        try:
            return int(thunder.cache_misses(compiled))
        except Exception:  # not a jitted function after all: no count
            return None

    def compile_count_source(self) -> tuple[str, str]:
        return DYNAMO_COMPILES_SOURCE if self.fx else ("", "thunder.cache_misses(compiled)")

    def final_trace(self, compiled: Callable) -> str | None:
        try:
            if self.fx:
                traces = compiled.last_traces
                return "\n\n".join(str(t[-1]) for t in traces if t) if traces else None
            import thunder

            return str(thunder.last_traces(compiled)[-1])
        except Exception:  # a trace is a courtesy for issue texts; never fail a case over it
            return None

    def reset(self) -> None:
        reset_dynamo()

    def repro_source(self) -> tuple[list[str], str]:
        executors = "[" + ", ".join(f"get_executor({name!r})" for name in self.executors) + "]"
        options = "".join(f", {k}={v!r}" for k, v in {**self.options, **self._mode_kwargs()}.items())
        if self.transforms:
            options += ", transforms=[" + ", ".join(f"thunder.transforms.{TRANSFORMS[t]}()" for t in self.transforms) + "]"
        imports = ["import thunder.transforms"] if self.transforms else []
        if self.fx:
            args = f", executors={executors}" if self.executors else ""
            expr = f"thunderfx(fn{args}{options})"
            expr = f"mark_dims({expr}, {self.marked!r})" if self.marked else expr
            return ["from thunder.dynamo import thunderfx", "from thunder.extend import get_executor", *imports], expr
        return ["import thunder", "from thunder.extend import get_executor", *imports], f"thunder.jit(fn, executors={executors}{options})"

    def min_elements(self, dtype: str, device: str) -> int:
        """thunderfx and the torchcompile executor generate Inductor code; other executors call kernels as they are."""
        return vector_elements(dtype, device) if self.fx or "torchcompile" in self.executors else 1

    def repro_guard(self) -> str:
        marks = MARK_DIMS_SOURCE if self.marked else ""
        if not self.executors:
            return marks
        return marks + (
            f"missing = [name for name in {tuple(self.executors)!r} if get_executor(name) is None]\n"
            "if missing:  # not the bug: the code that registers these executors was not imported\n"
            '    raise RuntimeError(f"thunder has no executor {missing}")\n\n'
        )
