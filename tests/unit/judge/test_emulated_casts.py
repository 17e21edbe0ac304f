"""emulated_rounding: a finding that the target's emulate_precision_casts makes, and that is gone without it."""

from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from numfuzz.corpus.case import Case
from numfuzz.judge.cause import kept_whatever_the_bound
from numfuzz.judge.emulated_casts import target_without_option, without_option, without_option_evidence
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import register, resolve
from numfuzz.targets.compile_modes import configured
from numfuzz.targets.eager import Eager
from numfuzz.targets.options import parse_options


class _RoundTheScaledValue(TorchFunctionMode):
    """round(x, decimals=d) with x * 10**d rounded to x's dtype first, as a decomposition's emulated cast would."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.round and kwargs.get("decimals"):
            x, scale = args[0], 10.0 ** kwargs["decimals"]
            return torch.round((x.float() * scale).to(x.dtype).float()).div(scale).to(x.dtype)
        return func(*args, **kwargs)


class Emulating(Eager):
    """Eager, except that with `emulate_precision_casts` on (in its spec or a case's drawn options) it rounds round()'s scaled intermediate."""

    def __init__(self, arg: str | None):
        self.options = parse_options(arg or "")
        self.name = "emulating" + (f":{arg}" if arg else "")

    def configured(self, run: RunSpec) -> Emulating:
        copy = Emulating(self.name.partition(":")[2] or None)
        copy.options = {**self.options, **run.options}
        return copy

    def prepare(self, fn: Callable, device: str) -> Callable:
        if self.options.get("emulate_precision_casts") is not True:
            return fn

        def run(*args):
            with _RoundTheScaledValue():
                return fn(*args)

        return run


register("emulating", Emulating, "eager, with a planted emulated rounding (tests only)", config_space="inductor")
ROUND = Graph((TensorSpec((16,), "fp16"),), (Node.make("round", [0], decimals=2),), (1,))
X = torch.full((16,), 1024.0, dtype=torch.float16)  # x * 100 overflows fp16; eager scales in fp32


def test_the_option_is_removed_from_the_spec_only_when_it_is_on():
    assert without_option("inductor:emulate_precision_casts=1") == "inductor"
    assert without_option("inductor:max_autotune=1,emulate_precision_casts=true") == "inductor:max_autotune=1"
    assert without_option("inductor:emulate_precision_casts=0") is None
    assert without_option("inductor") is None and without_option("thunder:torchcompile") is None


def test_a_rounding_only_the_option_makes_is_its_own_kept_cause():
    graph, x = ROUND, X
    outcome = run_case(Case.from_tensors(graph, [[x]], "emulating:emulate_precision_casts=1"), resolve("emulating:emulate_precision_casts=1"), "cpu")
    assert outcome.verdict is Verdict.NONFINITE
    assert outcome.analysis.cause == "emulated_rounding" and outcome.analysis.op == "round"
    assert "without emulate_precision_casts" in outcome.analysis.evidence[0]
    assert kept_whatever_the_bound("emulated_rounding", narrow=False)  # a finding whatever the bound
    plain = run_case(Case.from_tensors(graph, [[x]], "emulating"), resolve("emulating"), "cpu")
    assert plain.verdict is Verdict.EQUAL


def test_the_option_drawn_from_the_configuration_space_is_taken_out_too():
    run = RunSpec("emulating:max_autotune=1", compiler_options={"emulate_precision_casts": True})
    outcome = run_case(Case.from_tensors(ROUND, [[X]], run), resolve(run.target), "cpu")
    assert outcome.verdict is Verdict.NONFINITE and outcome.analysis.cause == "emulated_rounding"
    plain = target_without_option(configured(resolve(run.target), run))
    assert plain is not None and plain.options == {"max_autotune": True}  # the rest of the configuration stays
    assert target_without_option(resolve("emulating:max_autotune=1")) is None


def test_an_integer_input_of_the_culprit_is_no_dtype_to_round():
    """nll_loss takes i64 class targets: the check looks at its float input only (a campaign raised on the i64)."""
    graph = Graph((TensorSpec((4, 3), "bf16"), TensorSpec((4,), "i64")), (Node.make("nll_loss", [0, 1], ignore_index=-100, reduction="sum"),), (2,))
    x, classes = torch.randn(4, 3).to(torch.bfloat16), torch.tensor([0, 2, 1, 0])
    why = without_option_evidence(graph, [[x, classes]], resolve("emulating:emulate_precision_casts=1"), "cpu", 0, "bf16")
    assert why is not None and "without emulate_precision_casts" in why  # the planted rounding is in round() only: clean without it
