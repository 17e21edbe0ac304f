"""Errors against the float64 reference, in ULPs of the output dtype, and the oracle's verdict rule (the final verdict: `judge.rules`).

The rule, applied to each output over all elements of all input samples (elements whose
reference is non-finite or beyond the dtype's range are left out of the ULPs):

* nonfinite      -- the target is inf/nan on an element where eager is finite.
* nonfinite_class-- the target is finite, or of another non-finite class, on an element where eager and the
                    reference agree on NaN, +inf or -inf (`judge.nonfinite_class`).
* less_accurate  -- either *gross*: target max error > GROSS_FACTOR * eager max + GROSS_MARGIN ULP;
                    or *subtle*: all four of
                      - significance: a sign test on elements where the two errors differ,
                        z = (worse - better) / sqrt(worse + better) >= MIN_Z;
                      - tail effect: target max >= TAIL_FACTOR * eager max + TAIL_MARGIN ULP;
                      - mean effect: target mean - eager mean >= MEAN_SHIFT * max(eager mean, 0.5) ULP;
                      - above the noise floor: target max > noise_floor(dtype) (1 ULP for fp32, else 0).
* more_accurate  -- the same rule with eager and target swapped.
* equal          -- otherwise.

A case's verdict is the most severe over its outputs. Fused fp32 intermediates make the
target better, so they land in more_accurate or equal; a dropped cast, an extra rounding
or a cancelling approximation lands in less_accurate.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Iterable

import numpy as np

from numfuzz.judge.chunks import Flat, as_flat, ranges
from numfuzz.judge.exact_outputs import exact_difference
from numfuzz.judge.nonfinite_class import class_changes, class_lost
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import FloatFormat, check_dtype, is_integer

GROSS_FACTOR = 4.0
GROSS_MARGIN = 1.0
MIN_Z = 3.5
TAIL_FACTOR = 1.25
TAIL_MARGIN = 0.25
MEAN_SHIFT = 0.1
FAITHFUL_ULP = 1.0
FAITHFUL_MIN_MANTISSA = 23  # fp32 and wider
# fp32 kernel libraries document their functions to about 1-2 ULP (CUDA's libdevice: 2 ULP for
# sinf, cosf, erff; SLEEF's u10 variants: 1 ULP). The position check (judge.position) allows two
# positions' results this far apart. Whether a less accurate result is only rounding is decided
# per op against numfuzz/data/error_bounds.toml (judge.rounding_error), not here.
KERNEL_BOUND_ULP = 2.0


def ulp(reference: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Spacing of `fmt` at each reference value (subnormal spacing near zero)."""
    mag = np.abs(reference)
    _, exp = np.frexp(mag)
    exp = np.where(mag > 0, np.maximum(exp - 1, fmt.min_exponent), fmt.min_exponent)
    return np.ldexp(1.0, exp - fmt.mantissa_bits)


def ulp_error(value: np.ndarray, reference: np.ndarray, fmt: FloatFormat, unit: np.ndarray | None = None) -> np.ndarray:
    """|value - reference| in ULPs of the reference (or in `unit`, one per element)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs(value.astype(np.float64) - reference) / (ulp(reference, fmt) if unit is None else unit)
    return np.where(np.isfinite(value), err, np.inf)


@dataclass
class OutputErrors:
    """Errors of eager and of the target on one output, over every sample."""

    index: int
    dtype: str
    elements: int  # compared elements (finite, representable reference)
    eager_max_ulp: float
    eager_mean_ulp: float
    target_max_ulp: float
    target_mean_ulp: float
    eager_max_abs: float
    target_max_abs: float
    eager_max_rel: float
    target_max_rel: float
    worse: int  # elements where the target is further from the reference than eager
    better: int
    target_nonfinite: int  # non-finite target where eager is finite
    worst_element: int  # flat index (over samples) of the largest target-minus-eager error
    verdict: str = Verdict.EQUAL.value
    # Max errors in ULPs at the output's scale (`_in_ulps`), so that a reference of exactly 0
    # does not make a tiny error look like 2**100 ULP. None in cases recorded before they existed.
    eager_max_scaled: float | None = None
    target_max_scaled: float | None = None
    # where eager and the reference agree on a non-finite class and the target does not, counted by what it gave
    # instead ({"NaN -> finite": 3}; `judge.nonfinite_class`); empty in cases recorded before it was judged
    class_changes: dict[str, int] = field(default_factory=dict)
    # the output's scale: the largest |reference| compared (None in cases recorded before it was kept; `judge.eager_noise`)
    reference_max_abs: float | None = None

    @property
    def class_lost(self) -> int:
        """Elements where the target loses the non-finite class that eager and the reference agree on."""
        return sum(self.class_changes.values())

    @property
    def judged(self) -> bool:
        """Some element was judged: a finite reference compared in ULPs, or a non-finite class the target lost."""
        return bool(self.elements or self.class_lost)

    def to_json(self) -> dict:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}

    @staticmethod
    def from_json(data: dict) -> OutputErrors:
        fields = OutputErrors.__dataclass_fields__
        return OutputErrors(**{k: (math.inf if v is None and fields[k].type == "float" else v) for k, v in data.items() if k in fields})


def noise_floor(fmt: FloatFormat) -> float:
    """Max error (ULPs) at or below which the subtle rule stays silent for this dtype.

    Eager's own fp32 kernels (sin, erf, tanh, ...) are only faithfully rounded, so a compiled
    kernel within 1 ULP differs in implementation, not in quality. In bf16/fp16 eager computes
    in fp32 and rounds once (<= 0.5 ULP): there one extra rounding (~1 ULP) must be caught.
    """
    return FAITHFUL_ULP if fmt.mantissa_bits >= FAITHFUL_MIN_MANTISSA else 0.0


def worse_than(a_err: np.ndarray, b_err: np.ndarray, floor: float = 0.0) -> bool:
    """Is `a` less accurate than `b`, per the rule in the module docstring?"""
    if bool((~np.isfinite(a_err) & np.isfinite(b_err)).any()):
        return True  # non-finite where the other is finite
    finite = np.isfinite(a_err) & np.isfinite(b_err)
    return _worse_where_finite(a_err[finite], b_err[finite], floor)


def _worse_where_finite(a: np.ndarray, b: np.ndarray, floor: float) -> bool:
    """The rule on the elements where both errors are finite."""
    if a.size == 0:
        return False
    a_max, b_max = float(a.max()), float(b.max())
    if a_max > GROSS_FACTOR * b_max + GROSS_MARGIN:
        return True
    worse, better = int((a > b).sum()), int((a < b).sum())
    if worse + better == 0:
        return False
    z = (worse - better) / math.sqrt(worse + better)
    tail = a_max >= TAIL_FACTOR * b_max + TAIL_MARGIN
    shift = float(a.mean() - b.mean()) >= MEAN_SHIFT * max(float(b.mean()), 0.5)
    return z >= MIN_Z and tail and shift and a_max > floor


Values = Flat | np.ndarray | list


def _exact_errors(index: int, dtype: str, eager: Flat | list, target: Flat | list) -> OutputErrors:
    """An integer or bool output's errors (`exact_outputs`): how many elements differ from eager's, by how much at most."""
    d = exact_difference(eager, target)
    verdict = Verdict.EXACT_MISMATCH if d.differ else Verdict.EQUAL
    mean = d.largest * d.differ / max(d.elements, 1)
    return OutputErrors(index, dtype, d.elements, 0.0, 0.0, d.largest, mean, 0.0, d.largest, 0.0, 0.0, d.differ, 0, 0, d.first, verdict.value)


def compare_output(index: int, dtype: str, reference: Values, eager: Values, target: Values, eager_reference: Values | None = None) -> OutputErrors:
    """Each side over every sample, flat float64 arrays or `chunks.Flat`s (one tensor per sample); `dtype` is the output's dtype.

    `eager_reference` (default: `reference`) judges eager against another reference: the local
    check of one op compares each side with the op applied to that side's own inputs. Read a slice
    at a time (`judge.chunks`): the output's scale first, then the errors, of which only the
    elements where both are finite are kept whole (the means are taken over them).
    """
    if is_integer(dtype):  # an integer or bool output: eager's values are exact, and the target's must be them
        return _exact_errors(index, dtype, eager, target)
    fmt = check_dtype(dtype)
    ref, e, t = as_flat(reference), as_flat(eager), as_flat(target)
    e_ref = ref if eager_reference is None else as_flat(eager_reference)
    slices = list(ranges(ref.size))
    held = [_reference_slice(ref, e_ref, fmt, *slices[0])] if len(slices) == 1 else None  # every ordinary case: read once

    def references() -> Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return held or (_reference_slice(ref, e_ref, fmt, a, b) for a, b in slices)

    largest = {"t": 0.0, "e": 0.0}  # the output's scale: the largest |reference| kept, each side's
    for r, er, keep in references():
        if keep.any():
            largest["t"] = max(largest["t"], float(np.abs(r[keep]).max()))
            largest["e"] = largest["t"] if er is r else max(largest["e"], float(np.abs(er[keep]).max()))
    tally = _Tally(ref.size)
    for (a, b), (r, er, keep) in zip(slices, references()):
        tally.add(a, _chunk_errors(r, er, keep, e.slice(a, b), t.slice(a, b), fmt, largest))
    return tally.errors(index, dtype, noise_floor(fmt), largest["t"])


def _reference_slice(ref: Flat, e_ref: Flat, fmt: FloatFormat, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each side's reference over elements a..b, and the elements compared there."""
    r = ref.slice(a, b)
    er = r if e_ref is ref else e_ref.slice(a, b)
    return r, er, _kept(r, er, fmt)


def _kept(reference: np.ndarray, e_reference: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Elements compared: each reference finite and within the dtype's range."""
    with np.errstate(invalid="ignore"):
        keep = np.abs(reference) <= fmt.max_value  # False at nan; inf is past every range
        return keep if e_reference is reference else keep & (np.abs(e_reference) <= fmt.max_value)


def _chunk_errors(
    reference: np.ndarray, e_reference: np.ndarray, keep: np.ndarray, eager: np.ndarray, target: np.ndarray, fmt: FloatFormat, largest: dict
) -> dict:
    """One slice's errors, over its compared elements (`keep`)."""
    every = bool(keep.all())  # the usual slice: no copies
    ref, e, t = (reference, eager, target) if every else (reference[keep], eager[keep], target[keep])
    e_ref = ref if e_reference is reference else e_reference if every else e_reference[keep]
    smallest_normal = math.ldexp(1.0, fmt.min_exponent)  # relative errors are taken against at least this
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        e_abs, t_abs = np.abs(e - e_ref), np.abs(t - ref)
        e_err, e_scaled = _in_ulps(e_abs, e, e_ref, fmt, largest["e"])
        t_err, t_scaled = _in_ulps(t_abs, t, ref, fmt, largest["t"])
        both = np.isfinite(e_err) & np.isfinite(t_err)
        e_rel, t_rel = e_abs / np.maximum(np.abs(e_ref), smallest_normal), t_abs / np.maximum(np.abs(ref), smallest_normal)
        diff = np.where(both, t_err - e_err, -np.inf)
    return {
        "kept": np.arange(keep.size) if every else np.flatnonzero(keep),
        "nonfinite": int((np.isfinite(e) & ~np.isfinite(t)).sum()),
        "lost": _class_lost(reference, e_reference, eager, target, every),
        "maxima": {
            "eager_max_ulp": e_err,
            "target_max_ulp": t_err,
            "eager_max_abs": e_abs,
            "target_max_abs": t_abs,
            "eager_max_rel": e_rel,
            "target_max_rel": t_rel,
            "eager_max_scaled": e_scaled,
            "target_max_scaled": t_scaled,
        },
        "e_both": e_err[both],
        "t_both": t_err[both],
        "t_nonfinite_alone": bool((~np.isfinite(t_err) & np.isfinite(e_err)).any()),
        "e_nonfinite_alone": bool((~np.isfinite(e_err) & np.isfinite(t_err)).any()),
        "diff": diff,
    }


def _class_lost(reference: np.ndarray, e_reference: np.ndarray, eager: np.ndarray, target: np.ndarray, every: bool) -> tuple[np.ndarray, dict[str, int]]:
    """The slice's elements (positions in it) where the target loses a non-finite class eager and the reference agree
    on, and what it gave there; none where every reference is finite (`every`: the usual slice, not read again)."""
    if every:
        return np.zeros(0, np.int64), {}
    lost = np.flatnonzero(class_lost(reference, eager, target, e_reference))
    return lost, class_changes(reference[lost], target[lost]) if lost.size else {}


def _in_ulps(dev: np.ndarray, value: np.ndarray, reference: np.ndarray, fmt: FloatFormat, largest: float) -> tuple[np.ndarray, np.ndarray]:
    """`dev` (|value - reference|) in ULPs of each reference, and in ULPs at the output's scale: the spacing at
    max(|reference|, 2**-(precision) times the output's `largest` |reference|); inf where the value is not finite.
    An exact 0 has no ULP of its own (its spacing is the smallest subnormal): two nonzero values there are 1e35 "ULP"
    apart whichever is nearer, so errors at a 0 are taken at the output's scale."""
    own = ulp(reference, fmt)
    # the spacing is non-decreasing in |x|: at max(|x|, floor) it is the larger of the two spacings
    scaled = np.maximum(own, ulp(np.array([math.ldexp(largest, -(fmt.mantissa_bits + 1))]), fmt)[0])
    finite = np.isfinite(value)
    err = np.where(finite, dev / np.where(reference == 0, scaled, own), np.inf)
    return err, np.where(finite, dev / scaled, np.inf)


class _Tally:
    """What the slices add up to: counts, maxima as `_max` takes them, the first largest difference, and the errors
    where both sides are finite, kept whole (for the means and the rule)."""

    def __init__(self, size: int):
        self.elements = self.nonfinite = self.both = 0
        self.maxima: dict[str, float | None] = {}
        self.e_both, self.t_both = np.empty(size), np.empty(size)
        self.t_alone = self.e_alone = False
        self.worst: tuple[float, int] | None = None  # (difference, flat index) of the first largest
        self.class_changes: Counter[str] = Counter()
        self.first_lost: int | None = None  # flat index of the first element whose non-finite class the target lost

    def add(self, start: int, chunk: dict) -> None:
        lost, changes = chunk["lost"]
        if lost.size:
            self.class_changes.update(changes)
            self.first_lost = start + int(lost[0]) if self.first_lost is None else self.first_lost
        kept = chunk["kept"]
        self.elements += kept.size
        self.nonfinite += chunk["nonfinite"]
        for name, x in chunk["maxima"].items():
            self.maxima[name] = _max_of(self.maxima.get(name), x)
        n = chunk["e_both"].size
        self.e_both[self.both : self.both + n], self.t_both[self.both : self.both + n] = chunk["e_both"], chunk["t_both"]
        self.both += n
        self.t_alone |= chunk["t_nonfinite_alone"]
        self.e_alone |= chunk["e_nonfinite_alone"]
        if kept.size:
            j = int(np.argmax(chunk["diff"]))
            if self.worst is None or chunk["diff"][j] > self.worst[0]:
                self.worst = (float(chunk["diff"][j]), start + int(kept[j]))

    def errors(self, index: int, dtype: str, floor: float, scale: float | None = None) -> OutputErrors:
        e_both, t_both = self.e_both[: self.both], self.t_both[: self.both]
        maxima = {name: 0.0 if m is None else m for name, m in self.maxima.items()}
        out = OutputErrors(
            index=index,
            dtype=dtype,
            elements=self.elements,
            eager_mean_ulp=_mean(e_both),
            target_mean_ulp=_mean(t_both),
            worse=int((t_both > e_both).sum()),
            better=int((t_both < e_both).sum()),
            target_nonfinite=self.nonfinite,
            worst_element=-1 if self.worst is None else self.worst[1],
            **{name: maxima.get(name, 0.0) for name in _MAXIMA},
            class_changes=dict(sorted(self.class_changes.items())),
            reference_max_abs=scale,
        )
        if self.nonfinite:
            out.verdict = Verdict.NONFINITE.value
        elif self.first_lost is not None:
            out.verdict, out.worst_element = Verdict.NONFINITE_CLASS.value, self.first_lost
        elif self.t_alone or _worse_where_finite(t_both, e_both, floor):
            out.verdict = Verdict.LESS_ACCURATE.value
        elif self.e_alone or _worse_where_finite(e_both, t_both, floor):
            out.verdict = Verdict.MORE_ACCURATE.value
        return out


_MAXIMA = ("eager_max_ulp", "target_max_ulp", "eager_max_abs", "target_max_abs", "eager_max_rel", "target_max_rel", "eager_max_scaled", "target_max_scaled")


def _max_of(so_far: float | None, x: np.ndarray) -> float | None:
    """`_max` over the slices so far and `x`: inf once any element is not finite; None while no element was seen."""
    if x.size == 0:
        return so_far
    here = float(x.max())  # nan where one is nan; two reductions, no copy of the finite elements (`_max`)
    if not math.isfinite(here) or float(x.min()) == -math.inf:
        here = math.inf
    return here if so_far is None else max(so_far, here)


SEVERITY = [Verdict.EXACT_MISMATCH, Verdict.NONFINITE, Verdict.NONFINITE_CLASS, Verdict.LESS_ACCURATE, Verdict.MORE_ACCURATE, Verdict.EQUAL]


def combine(outputs: list[OutputErrors]) -> Verdict:
    """The case's verdict: the most severe over outputs; invalid when nothing was judged (`OutputErrors.judged`)."""
    if not any(o.judged for o in outputs):
        return Verdict.INVALID
    found = {Verdict(o.verdict) for o in outputs if o.judged}
    return next(v for v in SEVERITY if v in found)


def bits_lost(errors: OutputErrors, at_scale: bool = True) -> float:
    """Severity of a finding: log2 of how many times the target's max error exceeds eager's.

    Errors are taken at the output's scale (`_in_ulps`) where recorded (`at_scale`), else in ULPs
    of each element's own value, as the verdict rule compares them; both floored at half an ULP,
    and the result is capped at the dtype's precision: past that every bit is lost. A NaN or inf
    that eager and float64 agree on, lost, loses every bit: inf, as a non-finite value does.
    """
    if is_integer(errors.dtype):  # an integer value is right or wrong: every bit of a wrong one is lost
        return math.inf if errors.worse else 0.0
    if errors.class_lost:
        return math.inf
    precision = check_dtype(errors.dtype).mantissa_bits + 1
    target, eager = errors.target_max_ulp, errors.eager_max_ulp
    if at_scale and errors.target_max_scaled is not None and errors.eager_max_scaled is not None:
        target, eager = errors.target_max_scaled, errors.eager_max_scaled
    if not math.isfinite(eager):  # eager overflowed somewhere: compare where both are finite
        target, eager = errors.target_mean_ulp, errors.eager_mean_ulp
    if not math.isfinite(target):
        return math.inf
    return min(float(precision), max(0.0, math.log2(max(target, 0.5) / max(eager, 0.5))))


def gradient_bits_lost(errors: OutputErrors) -> float:
    """What a gradient finding loses, by the numbers the verdict rule flagged it on: each element's error in ULPs of its
    own value. A gradient's small elements are where a backward goes wrong (the largest dominate at the output's scale),
    so the severity of a gradient group and the rule that judges it (`fused_backward`) read this one measure."""
    return bits_lost(errors, at_scale=False)


def _max(x: np.ndarray) -> float:
    finite = x[np.isfinite(x)] if x.size else x
    if x.size and finite.size < x.size:
        return math.inf
    return float(finite.max()) if finite.size else 0.0


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else 0.0
