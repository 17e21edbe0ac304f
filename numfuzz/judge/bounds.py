"""Documented error bounds, as data: what each op's implementation promises, per backend, and the rule that uses them.

numfuzz ships `numfuzz/data/error_bounds.toml`; users add their own files in the same form
(`--bounds FILE`); the file's header says what each key means. A malformed file is a
BoundsError whose message is one line naming the file and the entry.

The bound of an op is stated for its fp32 implementation, in fp32 ULPs. A bf16 or fp16 op is
computed in fp32 and rounded once (by eager and by the compilers numfuzz targets), so its
documented error in ULPs of the narrow dtype is half an ULP for that rounding plus the fp32
bound scaled down by 2^(23 - mantissa bits); and the inputs it is exact for lie within that
scaled bound, not within the narrow dtype's coarse spacing (which would excuse a broken fp32
kernel behind a bf16 result).
"""

from __future__ import annotations

import math
import os
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Sequence

from numfuzz.program.dtypes import check_dtype

BUILTIN = "error_bounds.toml"
BACKENDS = ("cpu", "cpu_scalar", "cuda")
GROWS = ("", "log2n", "chunked")
# Inductor's CPU sum (cpp.py's CascadeSumHelper, PR #156296): sequential within chunks of this many
# additions (per vector lane, or per output along a non-innermost dim), the chunks merged pairwise
CHUNK = 4096
ENV = "NUMFUZZ_BOUNDS"  # os.pathsep-separated user files: how a process is told its --bounds when nothing passes them
BACKWARD_SUFFIX = ".backward"  # `tanh.backward` in a bounds file: the bound of tanh's backward
_ENTRY_KEYS = ("ops", "ulp", "source", "backends", "grows", "uncertain", "unit")
# What a bound's ULPs are of: the output (the default), or the op's one input, for a formula `x - g(x)` whose
# error is g's (tanhshrink: tanh's error at tanh(x), which is at most |x|): near 0 it is no count of output ULPs
UNITS = ("output", "input")
FP32_MANTISSA = 23


class BoundsError(ValueError):
    """A bounds file that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class Bound:
    """One op's documented accuracy on one backend, in fp32 ULPs, and where it is from."""

    ulp: float
    source: str
    grows: str = ""
    uncertain: bool = False
    documented: bool = True  # False: the table's default
    unit: str = "output"  # what its ULPs are of (UNITS)

    def scaled(self, n: int) -> float:
        """The bound for a reduction over n elements: one rounding per level (`grows = "log2n"`, pairwise), or
        per addition within a chunk and per level across chunks (`"chunked"`), else the bound itself."""
        n = max(n, 1)
        if self.grows == "log2n":
            return self.ulp * max(1, math.ceil(math.log2(n)))
        if self.grows == "chunked":
            return self.ulp * (min(n, CHUNK) + math.ceil(math.log2(math.ceil(n / CHUNK))))
        return self.ulp


@dataclass(frozen=True)
class Allowance:
    """What a bound allows one op's value, in the op's own dtype: an error at the output, or a move of the inputs."""

    output_ulp: float  # the value's error against the op in float64, in ULPs of the output dtype
    input_ulp: float  # the inputs' move that explains the value (after its final rounding), in ULPs of each input's dtype
    bound: Bound
    fp32_ulp: float  # the bound as documented (fp32 ULPs, grown for the reduction length)

    def to_json(self) -> dict:
        return {
            "output_ulp": self.output_ulp,
            "input_ulp": self.input_ulp,
            "documented_ulp": self.fp32_ulp,
            "source": self.bound.source,
            "documented": self.bound.documented,
            "grows": self.bound.grows,
            **({"unit": self.bound.unit} if self.bound.unit != "output" else {}),
            "uncertain": self.bound.uncertain,
        }


class Bounds:
    """The table: (op, backend or None for every backend) -> Bound, and the default."""

    def __init__(self, entries: dict[tuple[str, str | None], Bound], default: Bound):
        self.entries = entries
        self.default = default

    def lookup(self, op: str, backend: str) -> Bound:
        return self.entries.get((op, backend)) or self.entries.get((op, None)) or self.default

    def for_device(self, op: str, device: str) -> Bound:
        """On CPU an element comes from the vector body or the scalar tail: the larger bound of the two."""
        if str(device).startswith("cuda"):
            return self.lookup(op, "cuda")
        return max(self.lookup(op, "cpu"), self.lookup(op, "cpu_scalar"), key=lambda b: b.ulp)

    def allowance(self, op: str, dtype: str, device: str, n: int = 1) -> Allowance:
        return _allowance(self.for_device(op, device), dtype, n)

    def loosest(self, ops: Sequence[Sequence[Any]], dtype: str, device: str) -> Allowance:
        """The bound of a program taken as one op (the culprit's fused rest): the loosest of its ops' ((op, n) pairs), in its output's dtype."""
        return max((self.allowance(str(op), dtype, device, int(n)) for op, n in ops), key=lambda a: a.input_ulp)

    def backward_allowance(self, op: str, dtype: str, device: str, n: int = 1) -> Allowance:
        """What an op's backward (its vector-Jacobian product) may lose: the bound given for `OP.backward`, else a stated default.

        No math library documents its backward kernels. The default is the op's own bound, since
        a backward re-evaluates the op or its derivative, plus the table's default for the few
        roundings of the backward formula itself (tanh's: grad * (1 - y*y)).
        """
        name = f"{op}{BACKWARD_SUFFIX}"
        if any(key[0] == name for key in self.entries):
            return _allowance(self.for_device(name, device), dtype, n)
        forward = self.for_device(op, device)
        source = f"{forward.source}; plus {self.default.ulp:g} ULP for the backward formula's own roundings (no backward bound is documented)"
        return _allowance(Bound(forward.ulp + self.default.ulp, source, forward.grows, forward.uncertain, documented=False), dtype, n)


def _allowance(bound: Bound, dtype: str, n: int) -> Allowance:
    fp32 = bound.scaled(n)
    mantissa = check_dtype(dtype).mantissa_bits
    if mantissa >= FP32_MANTISSA:
        return Allowance(fp32, fp32, bound, fp32)
    narrow = math.ldexp(fp32, mantissa - FP32_MANTISSA)  # fp32 ULPs in ULPs of the narrow dtype
    return Allowance(0.5 + narrow, narrow, bound, fp32)


def _text(data: dict, key: str, where: str, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise BoundsError(f"{where}: '{key}' must be a non-empty string")
    return value


def _ulp(data: dict, where: str) -> float:
    value = data.get("ulp")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise BoundsError(f"{where}: 'ulp' must be a non-negative number of ULPs, got {value!r}")
    return float(value)


def _entries(data: Any, where: str) -> list[tuple[tuple[str, str | None], Bound]]:
    if not isinstance(data, dict):
        raise BoundsError(f"{where}: a [[bound]] must be a table")
    unknown = sorted(set(data) - set(_ENTRY_KEYS))
    if unknown:
        raise BoundsError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_ENTRY_KEYS)}")
    ops = data.get("ops")
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) and o for o in ops):
        raise BoundsError(f"{where}: 'ops' must be a non-empty list of op names")
    backends = data.get("backends", [])
    if not isinstance(backends, list) or not all(b in BACKENDS for b in backends):
        raise BoundsError(f"{where}: 'backends' must be a list of {', '.join(BACKENDS)}")
    grows = data.get("grows", "")
    if grows not in GROWS:
        raise BoundsError(f'{where}: \'grows\' must be "log2n", "chunked" or absent, got {grows!r}')
    uncertain = data.get("uncertain", False)
    if not isinstance(uncertain, bool):
        raise BoundsError(f"{where}: 'uncertain' must be true or false")
    unit = data.get("unit", "output")
    if unit not in UNITS:
        raise BoundsError(f"{where}: 'unit' must be one of {', '.join(UNITS)}, got {unit!r}")
    bound = Bound(_ulp(data, where), _text(data, "source", where), grows, uncertain, unit=unit)
    return [((op, backend), bound) for op in ops for backend in (backends or [None])]


def parse_bounds(text: str, name: str, base: Bounds | None = None) -> Bounds:
    """A bounds file's table, laid over `base`: a later entry replaces earlier ones (base's included) for its ops and backends."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BoundsError(f"{name}: not valid TOML: {exc}") from None
    extra = sorted(set(data) - {"default", "bound"})
    if extra:
        raise BoundsError(f"{name}: unknown table(s) {', '.join(extra)}; expected [default] and [[bound]]")
    entries = dict(base.entries) if base is not None else {}
    default = base.default if base is not None else None
    if "default" in data:
        table = data["default"]
        if not isinstance(table, dict) or set(table) - {"ulp", "source"}:
            raise BoundsError(f"{name}: [default] takes only 'ulp' and 'source'")
        default = Bound(_ulp(table, f"{name}: [default]"), _text(table, "source", f"{name}: [default]"), documented=False)
    if default is None:
        raise BoundsError(f"{name}: no [default] bound")
    found = data.get("bound", [])
    if not isinstance(found, list):
        raise BoundsError(f"{name}: 'bound' must be an array of tables ([[bound]])")
    for i, entry in enumerate(found):
        for (op, backend), bound in _entries(entry, f"{name}: bound {i + 1}"):
            if backend is None:  # for every backend: it replaces what came before for each of them too
                for b in BACKENDS:
                    entries.pop((op, b), None)
            entries[(op, backend)] = bound
    return Bounds(entries, default)


def env_files() -> list[str]:
    return [p for p in os.environ.get(ENV, "").split(os.pathsep) if p]


CORRECTLY_ROUNDED = Bound(0.5, "correctly rounded: the op's result is exact, or one IEEE rounding of it (the op table's `bound`)")


def load_bounds(extra: Sequence[Path | str] | None = None) -> Bounds:
    """The shipped bounds (the op table's correctly rounded ops, then the file), then each user file's (default: the files
    named in $NUMFUZZ_BOUNDS). An op the table calls "undocumented" takes the stated default."""
    from numfuzz.program.ops import OPS

    text = resources.files("numfuzz.data").joinpath(BUILTIN).read_text()
    bounds = parse_bounds(text, f"numfuzz/data/{BUILTIN}")
    documented = {op for op, _ in bounds.entries}
    for name, spec in OPS.items():
        if spec.bound == "correctly_rounded" and name not in documented:  # the file, where it speaks of one, knows more
            bounds.entries[(name, None)] = CORRECTLY_ROUNDED
    for path in env_files() if extra is None else extra:
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise BoundsError(f"{path}: cannot read: {exc}") from None
        bounds = parse_bounds(text, str(path), bounds)
    _counterparts_bound(bounds, OPS)
    return bounds


def _counterparts_bound(bounds: Bounds, ops: dict) -> None:
    """A database op with no bound of its own takes its hand-written counterpart's (`OpSpec.counterpart`: the same
    function and kernel), so a bound is stated once: `db.nn.functional.huber_loss` sums its terms as `huber_loss` does."""
    by_op: dict[str, list[tuple[str | None, Bound]]] = {}
    for (op, backend), bound in bounds.entries.items():
        by_op.setdefault(op, []).append((backend, bound))
    for name, spec in ops.items():
        if spec.counterpart and name not in by_op:
            for backend, bound in by_op.get(spec.counterpart, []):
                bounds.entries[(name, backend)] = replace(bound, source=f"as `{spec.counterpart}`, its counterpart: {bound.source}")


_active: dict[str, Bounds] = {}
_given: list[tuple[str, ...]] = []  # the files this process was handed (`use_bound_files`), over $NUMFUZZ_BOUNDS


@contextmanager
def bound_files_in_force(files: Sequence[Path | str]) -> Iterator[Bounds]:
    """This process judges by the shipped bounds plus these files while the block runs (a campaign's parent), and by
    what it judged by before afterwards."""
    before = list(_given)
    try:
        yield use_bound_files(files) if files else active_bounds()
    finally:
        _given[:] = before


def use_bound_files(files: Sequence[Path | str]) -> Bounds:
    """This process judges by the shipped bounds plus these files from now on (a campaign's workers, handed theirs in
    their settings); BoundsError for a file that cannot be used."""
    chosen = tuple(str(Path(f).resolve()) for f in files)
    bounds = load_bounds(list(chosen))
    _active[os.pathsep.join(chosen)] = bounds
    _given[:] = [chosen]
    return bounds


def active_bounds() -> Bounds:
    """The bounds this process judges by: the shipped ones plus the files it was handed, else $NUMFUZZ_BOUNDS's, read once per setting."""
    key = os.pathsep.join(_given[0]) if _given else os.environ.get(ENV, "")
    if key not in _active:
        _active[key] = load_bounds(key.split(os.pathsep) if key else [])
    return _active[key]
