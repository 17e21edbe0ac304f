"""emulated_rounding: a finding that the target's emulate_precision_casts makes, and that is gone without it."""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.emulated_casts import without_option
from numfuzz.judge.rounding import KEPT
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.eager import Eager


class _RoundTheScaledValue(TorchFunctionMode):
    """round(x, decimals=d) with x * 10**d rounded to x's dtype first, as a decomposition's emulated cast would."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.round and kwargs.get("decimals"):
            x, scale = args[0], 10.0 ** kwargs["decimals"]
            return torch.round((x.float() * scale).to(x.dtype).float()).div(scale).to(x.dtype)
        return func(*args, **kwargs)


class Emulating(Eager):
    """Eager, except that with `emulate_precision_casts=1` it rounds round()'s scaled intermediate."""

    def __init__(self, arg: str | None):
        self.emulating = bool(arg) and "emulate_precision_casts=1" in arg
        self.name = "emulating" + (f":{arg}" if arg else "")

    def prepare(self, fn: Callable, device: str) -> Callable:
        if not self.emulating:
            return fn

        def run(*args):
            with _RoundTheScaledValue():
                return fn(*args)

        return run


register("emulating", Emulating, "eager, with a planted emulated rounding (tests only)")


def test_the_option_is_removed_from_the_spec_only_when_it_is_on():
    assert without_option("inductor:emulate_precision_casts=1") == "inductor"
    assert without_option("inductor:max_autotune=1,emulate_precision_casts=true") == "inductor:max_autotune=1"
    assert without_option("inductor:emulate_precision_casts=0") is None
    assert without_option("inductor") is None and without_option("thunder:torchcompile") is None


def test_a_rounding_only_the_option_makes_is_its_own_kept_cause():
    graph = Graph((TensorSpec((16,), "fp16"),), (Node.make("round", [0], decimals=2),), (1,))
    x = torch.full((16,), 1024.0, dtype=torch.float16)  # x * 100 overflows fp16; eager scales in fp32
    outcome = run_case(Case.from_tensors(graph, [[x]], "emulating:emulate_precision_casts=1"), resolve("emulating:emulate_precision_casts=1"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE
    assert outcome.analysis["cause"] == "emulated_rounding" and outcome.analysis["op"] == "round"
    assert "without emulate_precision_casts" in outcome.analysis["evidence"][0]
    assert "emulated_rounding" in KEPT  # a finding whatever the bound
    plain = run_case(Case.from_tensors(graph, [[x]], "emulating"), resolve("emulating"), "cpu")
    assert plain.verdict is Verdict.EQUAL
