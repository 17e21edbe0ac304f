"""inductor: `cat` returns an output laid out unlike eager's

Standalone repro written by numfuzz. It runs `fn` in eager PyTorch and compiled with
`torch.compile(fn, backend="inductor", dynamic=False, options=None)`,
compares both with a float64 reference element by element, in ULPs of the output dtype,
and fails with an AssertionError while the compiled result is less accurate than eager, while
the same input values at two positions give the compiled program different results, or while an
output is laid out unlike eager's (strides, the memory it shares, whether it can be viewed).
"""

import math
from dataclasses import dataclass

import numpy as np  # installed with thunder
import torch
import torch.nn.functional as F


DEVICE = 'cpu'


def fn(x0, x1):
    t0 = torch.cat((x0, x1), dim=1)
    return (t0,)

# fn takes no scalar arguments.
SCALARS = []

# The float64 reference: the same program, every op in float64; an explicit cast still rounds (its gradient too).
def fn_fp64(x0, x1):
    t0 = torch.cat((x0, x1), dim=1)
    return (t0,)


# The inputs, exactly as found: one tuple per sample.
samples = [
    (torch.tensor([[], []], dtype=torch.bfloat16), torch.full((2, 2), 0.0, dtype=torch.bfloat16),),
]

# How each input lies in memory (None: contiguous): (dims in memory order, steps, dims of stride 0, offset).
LAYOUTS = [None, ([1, 0], [1, 1], [], 0)]


def laid_out(x, perm, step, expand, offset):
    """x's values in a view with this layout: dims in memory order `perm` (outermost first), every
    step-th element of memory along each dim, stride 0 along `expand` (x's first slice there),
    `offset` elements of memory before the first. Memory the view skips holds NaN."""
    shape, strides, extent = list(x.shape), [0] * x.dim(), 1
    for d in reversed(perm):
        if d not in expand:
            strides[d] = extent * step[d]
            extent *= shape[d] * step[d]
    memory = torch.full((offset + extent,), float("nan"), dtype=x.dtype, device=x.device)
    first = x[tuple(slice(0, 1) if d in expand else slice(None) for d in range(x.dim()))]
    torch.as_strided(memory, first.shape, strides, offset).copy_(first)
    return torch.as_strided(memory, shape, strides, offset)


def lay_out(xs):
    return [x if layout is None else laid_out(x, *layout) for x, layout in zip(xs, LAYOUTS)]


# The upstream gradients of the outputs, exactly as found: one tuple per sample.
upstream = [
    (torch.full((2, 2), 1.0, dtype=torch.bfloat16),),
]


def with_grads(f, xs, gs, scalars=None, lay=None):
    # an integer input (indices) gets no gradient: an empty one holds its place
    leaves = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in xs]
    floats = [x for x in leaves if x.requires_grad]
    outs = f(*(lay or lay_out)(leaves), *(SCALARS if scalars is None else scalars))
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    pairs = [(o, g) for o, g in zip(outs, gs) if o.requires_grad]
    grads = iter(torch.autograd.grad([o for o, _ in pairs], floats, [g for _, g in pairs], allow_unused=True) if pairs else [None] * len(floats))
    judged = [(next(grads) if x.requires_grad else torch.zeros(0, device=x.device)) for x in leaves]
    return tuple(o.detach() for o in outs) + tuple(torch.zeros_like(x) if g is None else g.detach() for x, g in zip(leaves, judged))


def as64(xs):
    return [x.to("cpu", torch.float64) if x.is_floating_point() else x.to("cpu") for x in xs]  # indices stay integers


def run_all():
    inputs = [[x.to(DEVICE) for x in sample] for sample in samples]
    ups = [[g.to(DEVICE) for g in row] for row in upstream]
    eager = [with_grads(fn, xs, gs) for xs, gs in zip(inputs, ups)]
    got = [with_grads(compiled, xs, gs) for xs, gs in zip(inputs, ups)]
    again = with_grads(compiled, inputs[0], ups[0])
    reference = [with_grads(fn_fp64, as64(xs), as64(gs)) for xs, gs in zip(samples, upstream)]
    return eager, got, again, reference


OUTPUTS = len(upstream[0])


def label(k):
    return f"output {k}" if k < OUTPUTS else f"the gradient of input x{k - OUTPUTS}"

compiled = torch.compile(fn, backend="inductor", dynamic=False, options=None)

# ---- numfuzz's verdict rule, copied from numfuzz/judge/oracle.py when this file was written ----
GROSS_FACTOR = 4.0
GROSS_MARGIN = 1.0
MIN_Z = 3.5
TAIL_FACTOR = 1.25
TAIL_MARGIN = 0.25
MEAN_SHIFT = 0.1
FAITHFUL_ULP = 1.0
FAITHFUL_MIN_MANTISSA = 23
KERNEL_BOUND_ULP = 2.0


@dataclass(frozen=True)
class FloatFormat:
    name: str
    mantissa_bits: int  # explicit fraction bits
    min_exponent: int  # exponent of the smallest normal number
    max_value: float
    rank: int  # position in torch's promotion lattice
    storage_bits: int  # stored as little-endian integers of this width
    torch_name: str  # the attribute of torch: torch.bfloat16

    @property
    def eps(self) -> float:
        return 2.0**-self.mantissa_bits


FORMATS = {
    torch.bfloat16: FloatFormat(name='bf16', mantissa_bits=7, min_exponent=-126, max_value=3.3895313892515355e+38, rank=1, storage_bits=16, torch_name='bfloat16'),
    torch.float16: FloatFormat(name='fp16', mantissa_bits=10, min_exponent=-14, max_value=65504.0, rank=1, storage_bits=16, torch_name='float16'),
    torch.float32: FloatFormat(name='fp32', mantissa_bits=23, min_exponent=-126, max_value=3.4028234663852886e+38, rank=2, storage_bits=32, torch_name='float32'),
    torch.float64: FloatFormat(name='fp64', mantissa_bits=52, min_exponent=-1022, max_value=1.7976931348623157e+308, rank=3, storage_bits=64, torch_name='float64'),
}


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


def _max(x: np.ndarray) -> float:
    finite = x[np.isfinite(x)] if x.size else x
    if x.size and finite.size < x.size:
        return math.inf
    return float(finite.max()) if finite.size else 0.0


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else 0.0


# ---- numfuzz's position check, copied from numfuzz/judge/position.py ----
def check_dtype(name):
    return next(fmt for fmt in FORMATS.values() if fmt.name == name)


def repeated_block(arrays: list[np.ndarray], axis: int) -> tuple[int, int] | None:
    """(extent, block) when every input spanning the right-aligned `axis` at its longest extent repeats its first `block` positions at its end."""
    spanning = [a for a in arrays if a.ndim >= -axis and a.shape[axis] > 1]
    if not spanning:
        return None
    size = max(a.shape[axis] for a in spanning)
    full = [np.moveaxis(a, axis, 0) for a in spanning if a.shape[axis] == size]
    # a block can repeat only where its first slice does: test those starts alone (a long row is not quadratic)
    starts = np.ones(size, dtype=bool)
    for a in full:
        starts &= (a == a[:1]).reshape(size, -1).all(axis=1)
    for start in np.flatnonzero(starts[size - size // 2 :]) + (size - size // 2):
        block = size - int(start)
        if all(np.array_equal(a[:block], a[size - block :]) for a in full):
            return size, block
    return None


def ends_along(x: np.ndarray, axis: int, size: int, block: int) -> tuple[np.ndarray, np.ndarray] | None:
    if x.ndim < -axis or x.shape[axis] != size:
        return None
    moved = np.moveaxis(x, axis, 0)
    return moved[:block], moved[size - block :]


def same_values(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a == b) | (np.isnan(a) & np.isnan(b))


def position_dependence(
    samples: list[list[torch.Tensor]], eager: list[tuple], reference: list[tuple], target: list[tuple], out_dtypes: list[str]
) -> str | None:
    """A one-line description of the first position-dependent result, or None."""
    for i, sample in enumerate(samples):
        arrays = [x.detach().to("cpu", torch.float64).numpy() for x in sample]
        rank = max((a.ndim for a in arrays), default=0)
        for axis in sorted({-1, -rank}) if rank else ():
            found = repeated_block(arrays, axis)
            if found is None:
                continue
            size, block = found
            for k, dtype in enumerate(out_dtypes):
                sides = [ends_along(run[i][k].detach().to("cpu", torch.float64).numpy(), axis, size, block) for run in (reference, eager, target)]
                if any(side is None for side in sides):
                    continue
                (r0, r1), (e0, e1), (t0, t1) = sides
                witnessed = (r0 == r1) & np.isfinite(r0) & same_values(e0, e1)
                differ = witnessed & ~same_values(t0, t1)
                if not differ.any():
                    continue
                fmt = check_dtype(dtype)
                largest = float(np.abs(reference[i][k].detach().to("cpu", torch.float64).numpy()).max())
                unit = ulp(np.maximum(np.abs(r0), math.ldexp(largest, -(fmt.mantissa_bits + 1))), fmt)  # at the output's scale
                if bool((np.isfinite(t0) != np.isfinite(t1))[differ].any()):
                    return f"output {k}, sample {i}: the same values at positions 0..{block - 1} and {size - block}..{size - 1} of dim {axis} give finite and non-finite results"
                gap = float((np.abs(t0 - t1) / unit)[differ].max())
                if gap > KERNEL_BOUND_ULP:
                    return (
                        f"output {k}, sample {i}: the same values at positions 0..{block - 1} and {size - block}..{size - 1} of dim {axis} "
                        f"give results {gap:.3g} ULP apart (eager and float64 agree there)"
                    )
    return None


# ---- numfuzz's metadata check, copied from numfuzz/judge/metadata.py ----
from typing import Sequence  # noqa: E402

NAMES = ['cat']  # each output, by the op that makes it
STRIDES = True  # whether the target promises eager's strides (numfuzz/judge/metadata.py)


def as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def metadata_differences(
    names: list[str], eager: Sequence[torch.Tensor], got: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor] | None, strides: bool
) -> list[str]:
    """What differs in the outputs' metadata, one phrase each: `output 0 (exp): strides (1, 4) where eager gives (4, 1)`.

    `names`: each output's name (the op that makes it); `inputs`: the tensors both sides were called with (None: not the same tensors, so input aliasing is not checked);
    `strides`: whether the target promises eager's strides and contiguity."""
    parts, sources = [], {}
    for k, (e, g) in enumerate(zip(eager[: len(names)], got[: len(names)])):
        if not _has_memory(e) or not _has_memory(g):
            continue
        if inputs is not None:
            sources[k] = (_source(e, inputs), _source(g, inputs))
            if sources[k][0] != sources[k][1]:
                parts.append(f"output {k} ({names[k]}): {_alias_text(sources[k][1])} where eager gives {_alias_text(sources[k][0])}")
                continue
        layout = _layout_difference(e, g) if strides else ""
        if layout:
            parts.append(f"output {k} ({names[k]}): {layout}")
    return parts + _shared_differences(eager[: len(names)], got[: len(names)], names, sources)


def _layout_difference(e: torch.Tensor, g: torch.Tensor) -> str:
    """How g's strides, contiguity or viewability differ from eager's e, where Inductor keeps them ("" where not)."""
    if e.numel() > 1 and _dense(e) and _sized_strides(e) != _sized_strides(g):
        lost = _views_flat(e) and not _views_flat(g)
        return f"strides {tuple(g.stride())} where eager gives {tuple(e.stride())}" + (", so a flat view fails" if lost else "")
    if e.is_contiguous() and not g.is_contiguous():
        return "not contiguous where eager's is"
    if _views_flat(e) and not _views_flat(g):
        return "a flat view fails where eager's works"
    return ""


def _dense(t: torch.Tensor) -> bool:
    """Non-overlapping and dense: the dims of size above 1, in stride order, tile memory with no gap and no overlap
    (torch's own test has moved between versions)."""
    expected = 1
    for size, stride in sorted(((n, s) for n, s in zip(t.shape, t.stride()) if n > 1), key=lambda d: d[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _shared_differences(eager: Sequence[torch.Tensor], got: Sequence[torch.Tensor], names: list[str], sources: dict) -> list[str]:
    """Pairs of outputs that share memory on one side only; a pair whose input aliasing already differs is said there."""
    parts = []
    kept = [k for k in range(min(len(eager), len(got))) if _has_memory(eager[k]) and _has_memory(got[k])]
    for a in kept:
        for b in (b for b in kept if b > a):
            if any(side[0] != side[1] for side in (sources.get(a, (None, None)), sources.get(b, (None, None)))):
                continue
            in_eager, in_got = _same_memory(eager[a], eager[b]), _same_memory(got[a], got[b])
            if in_eager != in_got:
                said = "share memory where eager's do not" if in_got else "do not share memory where eager's do"
                parts.append(f"outputs {a} and {b} ({names[a]}, {names[b]}): {said}")
    return parts


def _sized_strides(t: torch.Tensor) -> tuple[int, ...]:
    """The strides of the dims of size above 1: the ones a layout is made of."""
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


def _views_flat(t: torch.Tensor) -> bool:
    try:
        t.view(-1)
    except RuntimeError:
        return False
    return True


def _has_memory(t: object) -> bool:
    return isinstance(t, torch.Tensor) and t.numel() > 0 and t.untyped_storage().data_ptr() != 0


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _source(t: torch.Tensor, inputs: Sequence[torch.Tensor]) -> int | None:
    """The input whose memory `t` shares, or None for memory of its own."""
    return next((i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and _has_memory(x) and _same_memory(t, x)), None)


def _alias_text(source: int | None) -> str:
    return "a new tensor" if source is None else f"a view of input x{source}"


def error_table(k, dtype, elements, rows):
    """rows: (who, max ulp, mean ulp, max abs, max rel) against the float64 reference."""
    lines = [f"{k} ({dtype}, {elements} element{'s' * (elements != 1)}): error against the float64 reference",
             f"{'':>10}{'max ulp':>11}{'mean ulp':>11}{'max abs':>11}{'max rel':>11}"]
    for who, *numbers in rows:
        lines.append(f"{who:>10}" + "".join(f"{x:>11.4g}" for x in numbers))
    return "\n".join(lines)


def flat(runs, k):
    return np.concatenate([run[k].detach().to("cpu", torch.float64).reshape(-1).numpy() for run in runs])


eager, got, again, reference = run_all()
for e, g in zip(eager[0], got[0]):
    assert g.dtype == e.dtype and g.shape == e.shape, f"compiled gives {g.dtype}{tuple(g.shape)}, eager {e.dtype}{tuple(e.shape)}"
for a, b in zip(got[0], again):
    assert torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)) and torch.equal(a.isnan(), b.isnan()), "two runs on the same inputs differ"

less_accurate = []
for k in range(len(eager[0])):
    fmt = FORMATS[eager[0][k].dtype]
    ref, e, t = flat(reference, k), flat(eager, k), flat(got, k)
    if not ref.size:
        continue  # an integer input's empty gradient
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    ref, e, t = ref[keep], e[keep], t[keep]
    e_err, t_err = ulp_error(e, ref, fmt), ulp_error(t, ref, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        e_abs, t_abs = np.abs(e - ref), np.abs(t - ref)
        scale = np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    both = np.isfinite(e_err) & np.isfinite(t_err)
    rows = [(who, _max(err), _mean(err[both]), _max(dev), _max(dev / scale)) for who, err, dev in (("eager", e_err, e_abs), ("compiled", t_err, t_abs))]
    print(error_table(label(k), fmt.name, ref.size, rows))
    if (np.isfinite(e) & ~np.isfinite(t)).any() or worse_than(t_err, e_err, noise_floor(fmt)):
        less_accurate.append(k)

assert not less_accurate, f"the compiled result is less accurate than eager on {', '.join(label(k) for k in less_accurate)}"
differs = metadata_differences(NAMES, eager[0], got[0], None, STRIDES)
assert not differs, f"the compiled outputs are laid out unlike eager's: {'; '.join(differs)}"

print("OK: the compiled result is at least as accurate as eager, and laid out as eager's")
