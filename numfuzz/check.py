"""`numfuzz.check`: one program on one target, judged as the fuzzer judges it, for assertions in your own tests.

    result = numfuzz.check(program, lambda fn: torch.compile(fn, backend=my_backend))
    assert not result.is_finding, result.explain()

Whatever the target does wrong (raising, wrong shapes, worse numerics) comes back in the result;
only a misuse of the API (a graph without samples, an unknown or unavailable target) raises.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from numfuzz.judge.analysis import analyse
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, judge
from numfuzz.judge.facts import Analysis, Culprit
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.table import outcome_table
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, GraphError
from numfuzz.strategies import Program
from numfuzz.targets import Target, TargetError, resolve

Compiler = Callable[[Callable], Callable]


class CallableTarget:
    """A plain `compile(fn) -> compiled_fn` as a Target: it compiles per program and keeps no state between them.

    `repro_call`: how a repro script compiles `fn` with it, once the code that registers it is imported
    (`planted_model.compile_drop_upcast(fn)`); without one the script asks for your own `compile(fn)`."""

    def __init__(self, compile: Compiler, name: str | None = None, repro_call: str | None = None):
        self.compile = compile
        self.name = name or getattr(compile, "__name__", None) or type(compile).__name__
        self.repro_call = repro_call

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, fn: Callable, device: str) -> Callable:
        return self.compile(fn)

    def final_trace(self, compiled: Callable) -> str | None:
        return None

    def reset(self) -> None:
        pass  # the user's compiler owns its caches; resetting Dynamo here would drop their other compiles

    def repro_source(self) -> tuple[list[str], str]:
        if self.repro_call is not None:
            return [f"# compiled by {self.name}, which the imported code defines"], self.repro_call
        return [f"# compile with your own {self.name}"], "compile(fn)"

    def repro_guard(self) -> str:
        return ""

    def min_elements(self, dtype: str, device: str) -> int:
        return 1


def as_target(target: str | Target | Compiler) -> Target:
    """A target spec (`"inductor"`, `"thunder:torchcompile"`), a Target, or a callable `compile(fn) -> fn`.

    Raises TargetError for an unknown spec or a target that cannot run here, with the reason.
    """
    if isinstance(target, str):
        found = resolve(target)
    elif all(hasattr(target, attr) for attr in ("prepare", "available", "reset", "name")):
        found = target  # type: ignore[assignment]
    elif callable(target):
        return CallableTarget(target)
    else:
        raise TypeError(f"a target is a spec string, a Target or a callable compile(fn) -> fn; got {type(target).__name__}")
    ok, why = found.available()
    if not ok:
        raise TargetError(f"target {found.name} is not available here: {why}")
    return found


@dataclass
class CheckResult:
    """The verdict on one program and target, with each output's errors and, for an accuracy finding, where and why."""

    program: Program
    target: str  # the target's name
    device: str
    outcome: Outcome
    bounds: Bounds | None = None  # what it was judged by

    @property
    def verdict(self) -> Verdict:
        return self.outcome.verdict

    @property
    def is_finding(self) -> bool:
        """What the fuzzer would keep: less accurate, non-finite, a crash, a wrong shape, ... (`Verdict.is_finding`)."""
        return self.outcome.verdict.is_finding

    @property
    def detail(self) -> str:
        return self.outcome.detail

    @property
    def outputs(self) -> list[OutputErrors]:
        """Per output: eager's and the target's errors against float64, in ULPs and absolute and relative."""
        return self.outcome.outputs

    @property
    def analysis(self) -> Analysis | None:
        """For a finding analysed: its facts (`numfuzz.judge.facts.Analysis`): culprit, cause, evidence, rounding error."""
        return self.outcome.analysis

    @property
    def culprit(self) -> Culprit | None:
        """The node where the difference starts (node, op, dtype, how it was located), where the analysis found one."""
        return self.outcome.analysis.culprit if self.outcome.analysis is not None else None

    @property
    def cause(self) -> str | None:
        return self.outcome.analysis.cause if self.outcome.analysis is not None else None

    def explain(self) -> str:
        """The program, its inputs and the error table: what to print when an assertion fails."""
        return f"{self.target} on {self.device}:\n{self.program.describe()}\n{outcome_table(self.outcome, bounds=self.bounds)}"

    def __repr__(self) -> str:
        return f"CheckResult({self.target}, {self.verdict.value}{', ' + self.detail if self.detail else ''})"


def _program(program: Program | Graph, samples: list[list[torch.Tensor]] | None) -> Program:
    if isinstance(program, Graph):
        if not samples:
            raise ValueError("a Graph needs samples: a list of samples, each a list of one tensor per input")
        return Program(program, [list(sample) for sample in samples])
    if isinstance(program, Program):
        return Program(program.graph, [list(s) for s in samples]) if samples else program
    raise TypeError(f"check takes a numfuzz.strategies.Program or a Graph with samples; got {type(program).__name__}")


def check(
    program: Program | Graph,
    target: str | Target | Compiler,
    *,
    samples: list[list[torch.Tensor]] | None = None,
    device: str = "cpu",
    analysis: bool = True,
    bounds: Bounds | None = None,
) -> CheckResult:
    """Run `program` on eager, float64 and `target` (compiled once), and judge it as a campaign does.

    `samples` replaces the program's inputs (required for a bare Graph). With `analysis` (the
    default) an accuracy finding gets its culprit op and cause, at the cost of up to two more
    compiles; the analysis may also clear it as `amplified` (the error is only an upstream
    difference amplified) or as within the ops' documented bounds (`bounds`, default: the shipped
    ones and $NUMFUZZ_BOUNDS's files), as the fuzzer does. Without it such a case stays a finding.
    """
    program = _program(program, samples)
    resolved = as_target(target)
    inputs = [[x.detach().cpu() for x in sample] for sample in program.inputs]
    try:
        compiled = CompiledProgram(program.graph, resolved, device)
    except GraphError as exc:
        return CheckResult(program, resolved.name, device, Outcome(Verdict.INVALID, f"ill-typed graph: {exc}"))
    outcome = judge(compiled, inputs)
    bounds = active_bounds() if bounds is None else bounds
    if analysis:
        outcome = analyse(program.graph, inputs, resolved, device, outcome, bounds)
    return CheckResult(program, resolved.name, device, outcome, bounds)


class _CallableModule(types.ModuleType):
    """`numfuzz.check(...)` calls the function even where `import numfuzz.check` bound the module to that name."""

    def __call__(self, *args: Any, **kwargs: Any) -> CheckResult:
        return check(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
