"""Judge one compiled program: run eager, the float64 reference and the target on every sample, then ask the oracle.

Everything a target can do wrong comes back as an Outcome, never as an exception. The input
search is a phase of its own after this one (`numfuzz.search.phase`), on the same compile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import torch

from numfuzz.judge.chunks import Flat
from numfuzz.judge.compiled import CompiledProgram, flat64
from numfuzz.judge.error_parity import eager_raised_target_ran
from numfuzz.judge.facts import RULES_VERSION, Analysis
from numfuzz.judge.metadata import keeps_output_strides, metadata_differences
from numfuzz.judge.oracle import OutputErrors, bits_lost, combine, compare_output
from numfuzz.judge.output_words import class_lost_detail, exact_mismatch_detail, mismatch_text, output_names
from numfuzz.judge.position import position_dependence
from numfuzz.judge.refusal import own_code, refusal_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, GraphError
from numfuzz.program.values import torch_dtype
from numfuzz.targets import Target

# Where a verdict was seen, when not at the first call: at a second size (and maybe other scalars),
# or with the same shapes and other values of the scalar arguments (`program.scalars`).
SECOND_SIZE, SECOND_CALL = "second_size", "second_call"
AT_TEXT = {SECOND_SIZE: "at the second size", SECOND_CALL: "at the second scalar values"}


@dataclass
class Runs:
    """What one evaluation computed, per sample and output: kept in memory for the analysis, never stored."""

    eager: list[tuple]
    reference: list[tuple]
    target: list[tuple]

    def flat(self, who: str, k: int) -> np.ndarray:
        """Output `k` of every sample, as one flat float64 array."""
        return flat64([run[k] for run in getattr(self, who)])

    def parts(self, who: str, k: int) -> Flat:
        """Output `k` of every sample, read a slice at a time (`judge.chunks`): nothing concatenated."""
        return Flat([run[k] for run in getattr(self, who)])


@dataclass
class Outcome:
    """One judgement. `verdict` is the final one (`judge.rules.final_verdict`); `oracle` the oracle's, never rewritten."""

    verdict: Verdict
    detail: str = ""
    outputs: list[OutputErrors] = field(default_factory=list)
    compile_s: float = 0.0  # first target call, which compiles
    run_s: float = 0.0  # every later target call
    trace: str | None = None
    analysis: Analysis | None = None  # where the difference starts and why (numfuzz.judge.analysis)
    runs: Runs | None = field(default=None, repr=False, compare=False)
    # samples an input search added (on CPU, in the inputs' dtypes): the case must store them to reproduce
    searched: list[list[torch.Tensor]] = field(default_factory=list, repr=False, compare=False)
    at: str = ""  # SECOND_SIZE or SECOND_CALL: the verdict is the second call's, of a program compiled at the first (numfuzz.judge.second_size)
    second_size: dict | None = None  # what the second-size check saw: its verdict, sizes, whether it recompiled
    first: Outcome | None = field(default=None, repr=False, compare=False)  # a second size's outcome: the first size's (in memory only)
    oracle: Verdict | None = None  # the oracle's verdict, before any rule (`judge.rules`); set from `verdict` when not given
    rule: str = ""  # the rule that gave `verdict`, where one did
    rules_version: int = RULES_VERSION  # the rules' version that judged it (`judge.facts.RULES_VERSION`); 0: stored before numfuzz said

    def __post_init__(self) -> None:
        if self.oracle is None:
            self.oracle = self.verdict

    @property
    def clean(self) -> bool:
        return self.verdict.is_clean

    def to_json(self) -> dict:
        data = {
            "verdict": self.verdict.value,
            "detail": self.detail,
            "outputs": [o.to_json() for o in self.outputs],
            "compile_s": round(self.compile_s, 4),
            "run_s": round(self.run_s, 4),
            "rules_version": self.rules_version,
        }
        if self.analysis is not None:
            data["analysis"] = self.analysis.to_json()
        if self.oracle is not self.verdict:
            data["oracle_verdict"] = self.oracle.value
        if self.rule:
            data["rule"] = self.rule
        if self.at:
            data["at"] = self.at
        if self.second_size is not None:
            data["second_size"] = self.second_size
        return data

    @staticmethod
    def from_json(data: dict) -> Outcome:
        """A stored outcome; ValueError where it cannot be read. Cases stored before `oracle_verdict` get it from their outputs."""
        verdict = Verdict(data["verdict"])
        outputs = [OutputErrors.from_json(o) for o in data.get("outputs", [])]
        analysis = Analysis.from_json(data["analysis"]) if isinstance(data.get("analysis"), dict) else None
        oracle = Verdict(data["oracle_verdict"]) if "oracle_verdict" in data else _oracle_before_rules(verdict, outputs, analysis)
        return Outcome(
            verdict,
            data.get("detail", ""),
            outputs,
            float(data.get("compile_s", 0.0)),
            float(data.get("run_s", 0.0)),
            analysis=analysis,
            at=str(data.get("at", "")),
            second_size=data.get("second_size") if isinstance(data.get("second_size"), dict) else None,
            oracle=oracle,
            rule=str(data.get("rule", "")),
            rules_version=int(data.get("rules_version", 0)),
        )


def _oracle_before_rules(verdict: Verdict, outputs: list[OutputErrors], analysis: Analysis | None) -> Verdict:
    """What the oracle said of a case stored without it: only the benign rules rewrote verdicts, and the outputs keep theirs."""
    if verdict not in (Verdict.WITHIN_ROUNDING, Verdict.AMPLIFIED):
        return verdict
    if analysis is not None and analysis.partings is not None:
        return Verdict.POSITION_DEPENDENT
    found = {o.verdict for o in outputs if o.elements}
    return Verdict.NONFINITE if Verdict.NONFINITE.value in found else Verdict.LESS_ACCURATE


def one_line(exc: BaseException) -> str:
    """The exception's first line; a wrapper's ("backend='inductor' raised:") with the first line of what it wraps;
    a C++ compile error's with the compiler's first diagnostic, which says what is wrong (its first line does not)."""
    text = [line for line in f"{type(exc).__name__}: {exc}".strip().splitlines() if line.strip()]
    wrapped = len(text) > 1 and text[0].rstrip().endswith("raised:")
    first = f"{text[0].rstrip()} {text[1].strip()}" if wrapped else text[0] if text else type(exc).__name__
    if "C++ compile error" in first:
        diagnostic = next((m.group(1) for line in text if (m := _CPP_DIAGNOSTIC.search(line))), "")
        first = f"{first}: {diagnostic}" if diagnostic else first
    return first[:300]


_CPP_DIAGNOSTIC = re.compile(r"\berror: (.+)$")


OWN_MARK = "numfuzz's own mark_dynamic"  # how an invalid outcome that numfuzz's marking caused begins


def own_error(exc: BaseException) -> str | None:
    """Why an error is numfuzz's own doing, not the compiler's, or None: Dynamo raises ConstraintViolationError by
    design when a dim marked dynamic (numfuzz marks them, `compile_modes.marking`) is one the program specialises."""
    if any(c.__name__ == "ConstraintViolationError" for c in type(exc).__mro__) or "Constraints violated" in str(exc):
        return f"{OWN_MARK}: a marked dim is one the program specialises ({one_line(exc)[:200]})"
    return None


def crash_verdict(exc: BaseException, verdict: Verdict) -> Verdict:
    """Running out of memory is its own symptom, whichever stage raised it."""
    if isinstance(exc, (MemoryError, torch.OutOfMemoryError)) or "can't allocate memory" in str(exc):
        return Verdict.OOM
    return verdict


def raised(exc: BaseException, verdict: Verdict, target: object, prefix: str = "") -> Outcome:
    """What a target raising `exc` is: its own refusal (`judge.refusal`: unsupported, with where it was raised), running
    out of memory, or a crash of `verdict` (`prefix` before its message: "prepare raised ")."""
    refusal = refusal_of(exc, own_code(target))
    if refusal is not None:
        return Outcome(Verdict.UNSUPPORTED, refusal.detail())
    return Outcome(crash_verdict(exc, verdict), f"{prefix}{one_line(exc)}")


def _same_bits(a: tuple, b: tuple) -> bool:
    """The same values, NaN where NaN (an integer or bool output: equal)."""
    return all(_same_values(x, y) for x, y in zip(a, b))


def _same_values(x: torch.Tensor, y: torch.Tensor) -> bool:
    if not x.is_floating_point():
        return bool(torch.equal(x, y))
    return bool(torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)) and (x.isnan() == y.isnan()).all())


def judge(
    program: CompiledProgram,
    samples: list[list[torch.Tensor]],
    want_trace: bool = False,
    upstream: list[list[torch.Tensor]] | None = None,
    rerun: bool = True,
) -> Outcome:
    """Run `program` on every sample (the target compiling once) and judge it against float64.

    With gradients (`program.grad`), `upstream` holds each sample's upstream gradients, and each
    input's gradient is judged after the outputs, by the same rule. A clean verdict then gets the
    position check (`judge.position`) on the same runs. The first sample runs twice (determinism)
    unless `rerun` is off: samples judged a slice at a time check it on their first slice only.
    """
    ran = run_sides(program, samples, upstream, rerun)
    if isinstance(ran, Outcome):
        return ran
    inputs = None if program.grad else ran.first  # with gradients, each side runs on copies of its own
    outcome = judge_runs(program, samples, ran.runs.eager, ran.runs.reference, ran.runs.target, ran.again, inputs)
    outcome.compile_s, outcome.run_s = program.compile_s, program.run_s
    outcome.trace = program.trace() if want_trace else None
    return outcome


class Sides(NamedTuple):
    """`run_sides`' runs, the target's second run on the first sample (None unless asked) and that sample's inputs
    as both sides were called with them (the aliasing check needs those very tensors)."""

    runs: Runs
    again: tuple | None
    first: list[torch.Tensor]


def run_sides(
    program: CompiledProgram, samples: list[list[torch.Tensor]], upstream: list[list[torch.Tensor]] | None = None, rerun: bool = True
) -> Sides | Outcome:
    """Eager, the float64 reference and the target on every sample; or the outcome that ends the judgement first:
    eager refusing the case, the target raising."""
    on_device = [program.on_device(sample) for sample in samples]
    grads_on = [program.on_device(row) for row in upstream] if program.grad and upstream is not None else None
    if program.grad and (grads_on is None or len(grads_on) != len(samples)):
        return Outcome(Verdict.INVALID, "gradients are judged, and no upstream gradient came with every sample")
    baseline = eager_and_reference(program, on_device, grads_on)
    if isinstance(baseline, Outcome):
        return baseline
    eager_runs, ref_runs = baseline
    target_runs: list[tuple] = []
    try:
        program.prepare()
    except Exception as exc:
        return raised(exc, Verdict.CRASH_COMPILE, program.target, "prepare raised ")
    for i, sample in enumerate(on_device + on_device[: 1 if rerun else 0]):  # the first sample twice: determinism
        try:
            target_runs.append(program.run(sample) if grads_on is None else program.run_grads(sample, grads_on[i % len(samples)]))
        except Exception as exc:
            own = own_error(exc)
            if own is not None:  # no compiler finding: the case is invalid, with the reason
                return Outcome(Verdict.INVALID, own, compile_s=program.compile_s, run_s=program.run_s)
            outcome = raised(exc, Verdict.CRASH_COMPILE if i == 0 else Verdict.CRASH_RUN, program.target)
            outcome.compile_s, outcome.run_s = program.compile_s, program.run_s
            return outcome
    return Sides(Runs(eager_runs, ref_runs, target_runs[: len(samples)]), target_runs[-1] if rerun else None, on_device[0])


def evaluate(
    graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, want_trace: bool = False, upstream: list[list[torch.Tensor]] | None = None
) -> Outcome:
    """`judge` on a program compiled for this one judgement (a probe, a cut, a candidate, a sweep); `upstream`: with gradients."""
    try:
        program = CompiledProgram(graph, target, device, grad=upstream is not None)
    except GraphError as exc:
        return Outcome(Verdict.INVALID, f"ill-typed graph: {exc}")
    return judge(program, samples, want_trace, upstream)


def eager_and_reference(
    program: CompiledProgram, on_device: list[list[torch.Tensor]], grads: list[list[torch.Tensor]] | None = None
) -> tuple[list[tuple], list[tuple]] | Outcome:
    """Eager's and the float64 reference's runs (with gradients, when given), or the invalid outcome when eager refuses the case."""
    eager_runs, ref_runs = [], []
    for i, sample in enumerate(on_device):
        try:
            eager_runs.append(program.eager(sample) if grads is None else program.eager_grads(sample, grads[i]))
        except Exception as exc:  # no finding, unless the target computes what eager refuses (outputs only)
            unchecked = eager_raised_target_ran(program, sample, one_line(exc)) if grads is None else None
            if unchecked is None:
                return Outcome(Verdict.INVALID, f"eager raised {one_line(exc)}")
            return Outcome(Verdict.UNCHECKED, unchecked, compile_s=program.compile_s, run_s=program.run_s)
        try:
            ref_runs.append(program.reference(sample) if grads is None else program.reference_grads(sample, grads[i]))
        except Exception as exc:
            return Outcome(Verdict.INVALID, f"the float64 reference raised {one_line(exc)}")
    for spec, out in zip(program.out_specs, eager_runs[0]):
        if out.dtype != torch_dtype(spec.dtype) or tuple(out.shape) != spec.shape:
            return Outcome(Verdict.INVALID, f"eager gave {out.dtype}{tuple(out.shape)}, op table says {spec}")
    if grads is None and on_device and not _same_bits(eager_runs[0], program.eager(on_device[0])):
        # a program that reads memory it never wrote (an op's uninitialised result) or draws at random: no target can agree
        return Outcome(Verdict.INVALID, "eager itself gives other values on a second run of the first sample")
    return eager_runs, ref_runs


def judge_runs(
    program: CompiledProgram,
    samples: list,
    eager_runs: list[tuple],
    ref_runs: list[tuple],
    target_runs: list[tuple],
    again: tuple | None,
    inputs: list[torch.Tensor] | None = None,
) -> Outcome:
    """The verdict on one set of runs: shapes and dtypes, determinism, the oracle, the position check, then the outputs' metadata.

    `inputs`: the tensors of the first sample that eager and the target were both called with, for the
    aliasing check (None where they were not the same tensors). The metadata check (`judge.metadata`)
    looks only at a case whose values are clean: a value finding is analysed and located, and takes precedence."""
    unequal = unlike_runs(program.graph, eager_runs, target_runs, again)
    if unequal is not None:
        return unequal
    runs = Runs(eager_runs, ref_runs, target_runs)
    outputs = judge_outputs(runs, program.judged_dtypes)
    verdict = combine(outputs)
    detail = "no element has a finite reference" if verdict is Verdict.INVALID else ""
    if verdict is Verdict.EXACT_MISMATCH:  # each integer output that differs, named by its op: a fingerprint keeps the words
        detail = exact_mismatch_detail(program.graph, outputs)
    if verdict is Verdict.NONFINITE_CLASS:
        detail = class_lost_detail(program.graph, outputs)
    if verdict is Verdict.INVALID and all(e.numel() == 0 for e in eager_runs[0]):  # a size-0 dim: shapes, dtypes and a clean run agree
        verdict, detail = Verdict.EQUAL, "every output is empty: the compiled program ran and gave eager's shapes and dtypes"
    # gradients repeat nothing across positions (each position has its own upstream gradient)
    if verdict.is_clean and not program.grad:
        moved = position_dependence([[x.cpu() for x in sample] for sample in samples], runs.eager, runs.reference, runs.target, program.out_dtypes)
        if moved is not None:
            verdict, detail = Verdict.POSITION_DEPENDENT, moved
    if verdict.is_clean:
        differs = metadata_differences(output_names(program.graph), eager_runs[0], target_runs[0], inputs, keeps_output_strides(program.target))
        if differs:
            verdict, detail = Verdict.METADATA, "; ".join(differs)
    return Outcome(verdict, detail, outputs, runs=runs)


def unlike_runs(graph: Graph, eager_runs: list[tuple], target_runs: list[tuple], again: tuple | None) -> Outcome | None:
    """The outcome when the target's runs cannot be set against eager's: other dtypes or shapes, or two runs on the
    first sample (`again`, where given) that differ; else None."""
    for eager, got in zip(eager_runs, target_runs):
        if len(got) != len(eager) or any(not isinstance(g, torch.Tensor) or g.dtype != e.dtype or g.shape != e.shape for g, e in zip(got, eager)):
            return Outcome(Verdict.MISMATCH, mismatch_text(graph, eager, got))
    if again is not None and not _same_bits(target_runs[0], again):
        return Outcome(Verdict.NONDETERMINISTIC, "two runs on the first sample differ")
    return None


def judge_outputs(runs: Runs, out_dtypes: list[str]) -> list[OutputErrors]:
    """Each output's errors, eager's and the target's against the reference, over every sample."""
    return [compare_output(k, out_dtypes[k], runs.parts("reference", k), runs.parts("eager", k), runs.parts("target", k)) for k in range(len(out_dtypes))]


def flagged_output(outcome: Outcome) -> OutputErrors | None:
    """The output that carries the case's verdict and loses the most bits against eager."""
    flagged = [o for o in outcome.outputs if o.verdict == outcome.verdict.value and o.judged]
    return max(flagged, key=lambda o: (bits_lost(o), -o.index)) if flagged else None
