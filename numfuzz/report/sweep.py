"""Where the error lives: one minimised case run over inputs scaled by powers of two.

The sample holding the flagged output's worst element is scaled as a whole by 2**k (exact in
binary floating point until it under- or overflows), so that the same computation is seen
at every magnitude: a cancellation shows as an error that grows as |x| -> 0, a kernel
difference as a flat few ULP, a dropped cast as a jump. The minimiser leaves values such as
0.03125, and a power of two times a power of two is a lucky input (expm1(2**-k) as exp - 1 is
exact to first order); so the sweep also takes steps between octaves, 2**(k + j/4), whose
inputs are rounded to their dtype and have ordinary significands. The target is compiled
once, and every scaled sample runs through that one compiled program, eager and the float64
reference.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from numfuzz.corpus.case import Case, recorded_outcome
from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import flagged_output
from numfuzz.judge.oracle import ulp_error
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import round_to
from numfuzz.report.data import Sweep, SweepPoint
from numfuzz.targets import Target

STEPS_PER_OCTAVE = 4
# 2**-40 reaches deep into fp16's subnormals; 2**8 takes a value near 1 to the top of fp16's range.
EXPONENTS = tuple(k + j / STEPS_PER_OCTAVE for k in range(-40, 8) for j in range(STEPS_PER_OCTAVE)) + (8.0,)


class SweepError(RuntimeError):
    """A case that cannot be swept; the message is one line for the page."""


def _one_line(exc: BaseException) -> str:
    lines = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def _flat(outs: tuple) -> list[np.ndarray]:
    return [o.detach().to("cpu", torch.float64).reshape(-1).numpy() for o in outs]


class _Runner:
    """Eager, the float64 reference and the compiled target on one sample, as flat float64 arrays per output."""

    def __init__(self, case: Case, target: Target, device: str):
        self.program = CompiledProgram(case.graph, target, device)
        try:
            self.program.prepare()
        except Exception as exc:
            raise SweepError(f"the target failed to compile the case: {_one_line(exc)}") from None

    def run(self, sample: list[torch.Tensor]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        on_device = self.program.on_device(sample)
        return _flat(self.program.eager(on_device)), _flat(self.program.reference(sample)), _flat(self.program.run(on_device))


def _element_errors(ref: np.ndarray, eager: np.ndarray, got: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(eager ULP, target ULP, comparable) per element, as the oracle measures them."""
    fmt = check_dtype(dtype)
    comparable = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    return ulp_error(eager, ref, fmt), ulp_error(got, ref, fmt), comparable


def _worst(runner: _Runner, samples: list[list[torch.Tensor]], output: int | None, dtypes: list[str]) -> tuple[int, int, int]:
    """(output, sample, element) where the target loses most against eager; `output` None: any output."""
    best: tuple[float, int, int, int] | None = None
    for s, sample in enumerate(samples):
        try:
            eager, ref, got = runner.run(sample)
        except Exception as exc:
            raise SweepError(f"running the case raised {_one_line(exc)}") from None
        for k in range(len(ref)) if output is None else (output,):
            e_err, t_err, comparable = _element_errors(ref[k], eager[k], got[k], dtypes[k])
            with np.errstate(invalid="ignore"):
                diff = np.nan_to_num(t_err - e_err, nan=-np.inf, posinf=np.inf)
            diff = np.where(comparable & np.isfinite(e_err), diff, -np.inf)
            if diff.size and (best is None or float(diff.max()) > best[0]):
                best = (float(diff.max()), k, s, int(np.argmax(diff)))
    if best is None or best[0] == -np.inf:
        raise SweepError("no output element has a finite reference to sweep")
    return best[1], best[2], best[3]


def sweep_case(case: Case, target: Target, device: str, exponents: Sequence[float] = EXPONENTS) -> Sweep:
    """Scale the worst sample by 2**k for each k in `exponents` and record the flagged element's errors; one compile.

    Raises SweepError when the case cannot be swept at all; single scales that overflow the
    input dtype, lose the reference or make a run raise are skipped and counted.
    """
    specs = infer_specs(case.graph)
    dtypes = [specs[o].dtype for o in case.graph.outputs]
    samples = case.tensors()
    flagged = flagged_output(recorded_outcome(case))
    runner = _Runner(case, target, device)
    output, sample_index, element = _worst(runner, samples, flagged.index if flagged and flagged.index < len(dtypes) else None, dtypes)
    base = [x.to(torch.float64).numpy() for x in samples[sample_index]]
    sweep = Sweep(output, dtypes[output], sample_index, element)
    for k in exponents:
        point = _point(runner, case, base, k, output, element, dtypes[output])
        if point is None:
            sweep.skipped += 1
        else:
            sweep.points.append(point)
    if not sweep.points:
        raise SweepError(f"every one of the {len(exponents)} scales overflowed, lost the reference or raised")
    return sweep


def _point(runner: _Runner, case: Case, base: list[np.ndarray], k: float, output: int, element: int, dtype: str) -> SweepPoint | None:
    floats = [not is_integer(spec.dtype) for spec in case.graph.inputs]  # indices are not scaled
    scaled = [values * 2.0**k if scale else values for values, scale in zip(base, floats)]
    if any(np.abs(v).max(initial=0.0) > check_dtype(spec.dtype).max_value for v, spec, scale in zip(scaled, case.graph.inputs, floats) if scale):
        return None  # overflows the input dtype: not the same computation any more
    sample = [round_to(v, spec) for v, spec in zip(scaled, case.graph.inputs)]
    magnitude = max((float(x.to(torch.float64).abs().max()) for x in sample if x.numel()), default=0.0)
    if magnitude == 0.0:
        return None  # every input underflowed to zero
    try:
        eager, ref, got = runner.run(sample)
    except Exception:
        return None
    e_err, t_err, comparable = _element_errors(ref[output], eager[output], got[output], dtype)
    if not comparable[element]:
        return None
    return SweepPoint(k, magnitude, float(ref[output][element]), float(e_err[element]), float(t_err[element]))
