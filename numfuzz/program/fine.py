"""A reference finer than float64, for programs drawn in float64: the program's reference source run on numbers of
FINE_BITS bits (mpmath), each output rounded once to float64.

The float64 reference of a bf16, fp16 or fp32 program has 29 or more spare bits; for a float64 program it has none,
and an op's own rounding in it is as large as the errors it should judge. Here the same source that lowers the
program (`numfuzz.program.lowering.lower(graph, reference=True)`) runs with `torch` and `F` standing for the
functions below, elementwise over numpy arrays of mpmath numbers, so the op's meaning stays where it is written
(its call template in its `OpSpec`). An op whose template uses only these functions and Python's operators is
`evaluable`; float64 programs are drawn from those ops (`fine_ops`).

Measured (torch 2.9.1, this module's test): against 200-bit mpmath, the fine reference of `acosh`, `erfinv` and
`expm1` chains is correctly rounded; torch's own float64 kernels are up to 1-2 ULP off there.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Callable

import mpmath
import numpy as np

FINE_BITS = 160
_mp = mpmath.mp
_NAN = mpmath.mpf("nan")
_MAX = mpmath.mpf(np.finfo(np.float64).max)  # beyond it (and half an ULP), float64 has only inf
_TINY = mpmath.mpf(2) ** -1100  # below float64's least subnormal: 0 there too


def _in_range(value: Any) -> Any:
    """`value` with float64's range: inf beyond its largest number, 0 below its least (mpmath's own never end, and
    sin of exp(exp(100)) would take forever)."""
    if not mpmath.isfinite(value):
        return value
    if abs(value) > _MAX * (1 + mpmath.mpf(2) ** -53):
        return mpmath.inf if value > 0 else -mpmath.inf
    return mpmath.mpf(0) if abs(value) < _TINY else value


class Fine:
    """A number of FINE_BITS bits with float64's range and IEEE's answers where mpmath raises (x / 0). mpmath has no
    negative zero: -0 reads as 0 (an op whose answer depends on a zero's sign keeps its float64 value's sign lost)."""

    __slots__ = ("v",)

    def __init__(self, v: Any):
        self.v = _in_range(v if isinstance(v, mpmath.mpf) else mpmath.mpf(v))

    def __add__(self, other: Any) -> Fine:
        return Fine(self.v + _value(other))

    def __sub__(self, other: Any) -> Fine:
        return Fine(self.v - _value(other))

    def __rsub__(self, other: Any) -> Fine:
        return Fine(_value(other) - self.v)

    def __mul__(self, other: Any) -> Fine:
        return Fine(self.v * _value(other))

    def __truediv__(self, other: Any) -> Fine:
        return Fine(_divide(self.v, _value(other)))

    def __rtruediv__(self, other: Any) -> Fine:
        return Fine(_divide(_value(other), self.v))

    __radd__, __rmul__ = __add__, __mul__

    def __neg__(self) -> Fine:
        return Fine(-self.v)

    def __abs__(self) -> Fine:
        return Fine(abs(self.v))

    def __lt__(self, other: Any) -> bool:
        return bool(self.v < _value(other))

    def __gt__(self, other: Any) -> bool:
        return bool(self.v > _value(other))

    def __le__(self, other: Any) -> bool:
        return bool(self.v <= _value(other))

    def __ge__(self, other: Any) -> bool:
        return bool(self.v >= _value(other))


def _value(x: Any) -> Any:
    return x.v if isinstance(x, Fine) else mpmath.mpf(x)


def _divide(a: Any, b: Any) -> Any:
    if b == 0:
        return _NAN if a == 0 or mpmath.isnan(a) else mpmath.inf if a > 0 else -mpmath.inf
    return a / b


def _real(fn: Callable) -> Callable:
    """`fn` on Fine numbers, NaN where the real function has no value (mpmath answers with a complex one) or raises."""

    def one(x: Any, *rest: Any) -> Fine:
        values = [_value(a) for a in (x, *rest)]
        if any(mpmath.isnan(v) for v in values):
            return Fine(_NAN)
        try:
            value = fn(*values)
        except (ZeroDivisionError, ValueError):
            return Fine(_NAN)
        return Fine(value) if isinstance(value, mpmath.mpf) else Fine(_NAN)

    return one


def _elementwise(fn: Callable, arity: int = 1) -> Callable:
    ufunc = np.frompyfunc(_real(fn), arity, 1)
    return lambda *args, **kwargs: ufunc(*args[:arity])


def _sigmoid(x):
    return 1 / (1 + mpmath.exp(-x))


def _softplus(x):
    return x if x > 20 else mpmath.log1p(mpmath.exp(x))  # torch's threshold: x itself above 20


def _gelu(x, approximate: str = "none"):
    if approximate == "tanh":
        return x / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x**3)))
    return x / 2 * (1 + mpmath.erf(x / mpmath.sqrt(2)))


_SELU_ALPHA, _SELU_SCALE = mpmath.mpf("1.6732632423543772848170429916717"), mpmath.mpf("1.0507009873554804934193349852946")
_UNARY: dict[str, Callable] = {
    "neg": lambda x: -x,
    "abs": abs,
    "exp": mpmath.exp,
    "expm1": mpmath.expm1,
    "exp2": lambda x: mpmath.power(2, x),
    "sin": mpmath.sin,
    "cos": mpmath.cos,
    "tan": mpmath.tan,
    "tanh": mpmath.tanh,
    "sinh": mpmath.sinh,
    "cosh": mpmath.cosh,
    "asin": mpmath.asin,
    "acos": mpmath.acos,
    "atan": mpmath.atan,
    "asinh": mpmath.asinh,
    "acosh": mpmath.acosh,
    "atanh": mpmath.atanh,
    "sigmoid": _sigmoid,
    "relu": lambda x: x if x > 0 else mpmath.mpf(0),
    "erf": mpmath.erf,
    "erfc": mpmath.erfc,
    "erfinv": mpmath.erfinv,
    "log": mpmath.log,
    "log1p": mpmath.log1p,
    "log2": lambda x: mpmath.log(x, 2),
    "log10": mpmath.log10,
    "sqrt": mpmath.sqrt,
    "rsqrt": lambda x: 1 / mpmath.sqrt(x),
    "reciprocal": lambda x: 1 / x,
    "square": lambda x: x * x,
}
_F_UNARY: dict[str, Callable] = {
    "silu": lambda x: x * _sigmoid(x),
    "softplus": _softplus,
    "mish": lambda x: x * mpmath.tanh(_softplus(x)),
    "softsign": lambda x: x / (1 + abs(x)),
    "selu": lambda x: _SELU_SCALE * (x if x > 0 else _SELU_ALPHA * mpmath.expm1(x)),
}
_BINARY: dict[str, Callable] = {
    "maximum": lambda a, b: a if a >= b else b,  # NaN never reaches here: _real answers NaN first
    "minimum": lambda a, b: a if a <= b else b,
    "pow": mpmath.power,
    "atan2": mpmath.atan2,
    "hypot": mpmath.hypot,
    "logaddexp": lambda a, b: mpmath.log(mpmath.exp(a) + mpmath.exp(b)),
}


class _Torch:
    """What the reference source calls as `torch.NAME(...)`."""

    float64 = np.float64


class _F:
    """What it calls as `F.NAME(...)`."""


for _name, _fn in {**_UNARY}.items():
    setattr(_Torch, _name, staticmethod(_elementwise(_fn)))
for _name, _fn in _BINARY.items():
    setattr(_Torch, _name, staticmethod(_elementwise(_fn, 2)))
for _name, _fn in _F_UNARY.items():
    setattr(_F, _name, staticmethod(_elementwise(_fn)))
_F.gelu = staticmethod(lambda x, approximate="none": np.frompyfunc(_real(lambda v: _gelu(v, approximate)), 1, 1)(x))


def _reduction(fn: Callable) -> Callable:
    def reduce(x, dim=None, keepdim=False):
        if np.ndim(x) == 0 and isinstance(dim, int):  # torch reads a 0-d value's dim 0 or -1 as one element's; the result is 0-d
            return np.asarray(fn(np.reshape(x, (1,)), axis=dim, keepdims=False))
        return fn(x, axis=tuple(dim) if isinstance(dim, (list, tuple)) else dim, keepdims=keepdim)

    return staticmethod(reduce)


def _mean(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return np.sum(x, axis=axis, keepdims=keepdims) / math.prod(x.shape[a] for a in axes)


def _adaptive_avg_pool1d(x: np.ndarray, output_size: int) -> np.ndarray:
    """torch's windows: the i-th of n over a length L runs from floor(i L / n) to ceil((i + 1) L / n)."""
    length = x.shape[-1]
    windows = [(i * length // output_size, -(-(i + 1) * length // output_size)) for i in range(output_size)]
    return np.stack([np.sum(x[..., a:b], axis=-1) / (b - a) for a, b in windows], axis=-1)


_Torch.sum = _reduction(np.sum)  # exact at FINE_BITS for the sizes drawn: every partial sum keeps its bits
_Torch.mean = _reduction(_mean)
_Torch.amax = _reduction(np.max)  # a selection: Fine compares exactly
_Torch.amin = _reduction(np.min)
_F.adaptive_avg_pool1d = staticmethod(_adaptive_avg_pool1d)

_CALL = re.compile(r"\b(torch|F)\.(\w+)\(")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def evaluable(spec: Any) -> bool:
    """Can the fine reference run this op: its reference template calls only the functions here, and Python's operators."""
    template = spec.reference or spec.call
    if not template or spec.index_arg is not None or "dtype=" in template:  # a result in another dtype: no float64 program
        return False
    names = _CALL.findall(template)
    rest = _PLACEHOLDER.sub("", _CALL.sub("(", template))
    if "." in rest or "[" in rest or re.search(r"\w\(", rest):  # a method, an attribute, an index or another helper
        return False
    return all(hasattr(_Torch if module == "torch" else _F, name) for module, name in names)


@lru_cache(maxsize=1)
def fine_ops() -> frozenset[str]:
    """The ops a float64 program is drawn from."""
    from numfuzz.program.ops import OPS

    return frozenset(name for name, spec in OPS.items() if evaluable(spec))


def is_fine(graph: Any) -> bool:
    """A float64 program the fine reference evaluates: float64 inputs and values throughout, and ops it knows."""
    from numfuzz.program.ops import infer_specs

    return all(s.dtype == "fp64" for s in infer_specs(graph)) and all(n.op in fine_ops() for n in graph.nodes)


def _to_fine(values: np.ndarray, moves: np.ndarray | None = None) -> np.ndarray:
    """Float64 values as Fine numbers, each moved exactly by its `moves` (a fraction of a float64 ULP stays)."""
    values = np.asarray(values, dtype=np.float64)
    if moves is None:
        return np.frompyfunc(Fine, 1, 1)(values)
    moved = lambda v, d: Fine(mpmath.mpf(v) + mpmath.mpf(d))  # noqa: E731
    return np.frompyfunc(moved, 2, 1)(values, np.asarray(moves, dtype=np.float64).reshape(values.shape))


def _to_float64(values: Any) -> np.ndarray:
    with _mp.workprec(53):  # rounds once, to nearest even (inside the caller's FINE_BITS)
        rounded = np.frompyfunc(lambda v: float(+_value(v)), 1, 1)(values)
    return np.asarray(rounded, dtype=np.float64)


@lru_cache(maxsize=256)
def _fine_function(source: str) -> Callable:
    namespace: dict[str, Any] = {"torch": _Torch, "F": _F, "math": math, "inf": math.inf, "nan": math.nan}
    exec(compile(source, "<numfuzz-fine-reference>", "exec"), namespace)
    return namespace["fn"]


def fine_outputs(source: str, inputs: list[np.ndarray], scalars: list, moves: list[np.ndarray] | None = None) -> list[np.ndarray] | None:
    """The outputs of the lowered reference `source` on these float64 inputs (each moved exactly by `moves`, where
    given), each rounded once to float64; None where the numbers cannot answer (a division by zero, an overflow
    mpmath raises for): the caller keeps float64 then."""
    fn = _fine_function(source)
    with _mp.workprec(FINE_BITS), np.errstate(invalid="ignore"):
        try:
            outputs = fn(*(_to_fine(x, None if moves is None else d) for x, d in zip(inputs, moves or [None] * len(inputs))), *scalars)
        except (ZeroDivisionError, OverflowError, ValueError):
            return None
        return [_to_float64(np.asarray(out, dtype=object)) for out in outputs]
