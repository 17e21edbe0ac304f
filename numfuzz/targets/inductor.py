"""torch.compile with Inductor, options after the colon: `inductor:emulate_precision_casts=1`."""

from __future__ import annotations

from typing import Callable

from numfuzz.run_spec import DYNAMIC_MODES, RunSpec
from numfuzz.targets.compile_modes import DYNAMO_COMPILES_SOURCE, MARK_DIMS_SOURCE, check_modes, dynamic_argument, dynamo_compiles, marking
from numfuzz.targets.options import parse_options, reset_dynamo, vector_elements


def inductor_default(key: str) -> object:
    """This torch's default value of an Inductor option (it exists: see `missing_inductor_option`)."""
    import torch._inductor.config as config

    node = config
    for part in key.split("."):
        node = getattr(node, part)
    return node


def missing_inductor_option(key: str) -> str:
    """Why this torch's Inductor config has no option `key` ("" when it has it: some exist only in some versions)."""
    import torch
    import torch._inductor.config as config

    node = config
    for part in key.split("."):
        if not hasattr(node, part):
            return f"torch {torch.__version__}'s Inductor has no option {key!r}"
        node = getattr(node, part)
    return ""


class Inductor:
    # Cases a campaign compiles together (numfuzz.runner.batch). On torch 2.9.1, 2 busy CPU cores,
    # 16 generated graphs took 34.6 s one compile each and 10.0 s as two compiles of 8.
    batch_default = 8
    modes = DYNAMIC_MODES
    own_code = ("torch._inductor",)  # an explicit refusal raised in Inductor's code is `unsupported` (`judge.refusal`)

    def __init__(self, arg: str | None):
        self.options = parse_options(arg or "")
        self.name = "inductor" + (f":{arg}" if arg else "")
        self.dynamic = "static"
        self.marked: tuple[tuple[int, int], ...] = ()

    def configured(self, run: RunSpec) -> Inductor:
        """This target with the run's size mode, and its drawn options over the spec's own."""
        check_modes(self.name, run, self.modes)
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.options = {**self.options, **run.options}
        copy.dynamic, copy.marked = run.dynamic, run.marked
        return copy

    def available(self) -> tuple[bool, str]:
        """Every option must exist in this torch's Inductor config."""
        for key in self.options:
            why = missing_inductor_option(key)
            if why:
                return False, why
        return True, ""

    def defaults(self, keys: list[str]) -> dict:
        """This torch's defaults of these options: an entry of the configuration space that sets only defaults is no configuration."""
        return {key: inductor_default(key) for key in keys}

    def prepare(self, fn: Callable, device: str) -> Callable:
        import torch

        compiled = torch.compile(fn, backend="inductor", dynamic=dynamic_argument(self.dynamic), options=self.options or None)
        return marking(compiled, self.marked) if self.marked else compiled

    def compile_count(self, compiled: Callable) -> int:
        return dynamo_compiles()

    def keeps_output_strides(self) -> bool:
        """Inductor gives every output eager's strides unless its options say not to (`numfuzz.judge.metadata`)."""
        keep = self.options.get("keep_output_stride", _default_or("keep_output_stride", True))
        pad = self.options.get("pad_outputs", _default_or("pad_outputs", False))
        return bool(keep) and not pad

    def final_trace(self, compiled: Callable) -> str | None:
        return None

    def reset(self) -> None:
        reset_dynamo()

    def repro_source(self) -> tuple[list[str], str]:
        return [], _marked_expr(
            f'torch.compile(fn, backend="inductor", dynamic={dynamic_argument(self.dynamic)}, options={self.options or None!r})', self.marked
        )

    def repro_guard(self) -> str:
        return MARK_DIMS_SOURCE if self.marked else ""

    def compile_count_source(self) -> tuple[str, str]:
        """(an import line, an expression): the script's count of compiles, as `compiles` counts them."""
        return DYNAMO_COMPILES_SOURCE

    def min_elements(self, dtype: str, device: str) -> int:
        return vector_elements(dtype, device)


def _default_or(key: str, fallback: object) -> object:
    """This torch's default of an Inductor option, or `fallback` where this version has no such option."""
    return inductor_default(key) if not missing_inductor_option(key) else fallback


def _marked_expr(expr: str, marked: tuple[tuple[int, int], ...]) -> str:
    return f"mark_dims({expr}, {marked!r})" if marked else expr
