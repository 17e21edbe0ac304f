"""Reading PyTorch's op database (and Thunder's) into entries: each op's public call, its CPU dtypes and its forms.

An entry is plain data (`op_db.entries.DatabaseOp` reads it back): the op's numfuzz name (`db.` and
its OpInfo name), the dtypes its CPU kernels take, whether it has a gradient, its input domain and
autocast policy, and its forms, each a sample input written as a call (`op_db.sources`). What each
fact is derived from, measured on the installed torch:

* the call    -- the OpInfo's function, where it is the public torch function of its name (or of its
                 method variant): the form's source must give the OpInfo's own result on the sample;
* dtypes      -- `supported_dtypes("cpu")`, those numfuzz names (no complex);
* forms       -- the samples of each dtype numfuzz draws (fp32, i64, i32, bool) that it can write and
                 call, at most DRAWN_DTYPES[dtype] each, one per distinct call and shapes; an integer tensor is a
                 value where the call takes any integers there, else a position within the sample's range;
* meta        -- whether the form runs on meta tensors (shapes inferred for other sizes), else fixed;
* autocast    -- the result's dtype under a CPU bf16 autocast region: bf16 from fp32 ("lower"), fp32 from bf16 ("fp32");
* domain      -- a unary ufunc's stated domain ((0, None) is positive, (-1, 1) unit, ...);
* kind        -- the database's class of the OpInfo (ReductionOpInfo: a reduction along dims);
* refusals    -- an op numfuzz cannot draw says why: random (two calls differ), uninitialised (empty), unchecked (_unsafe_*), complex only, no CPU
                 kernel, no public call, no sample it can write, a result whose shape depends on values.

Needs torch and, for the database, expecttest; only `scripts/op_db_snapshot` runs it.
"""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import torch

from numfuzz.program.op_db.entries import UNMEASURED
from numfuzz.program.op_db.sources import DTYPE_NAMES, FLOATS, Unusable, Written, lambda_of, write_call, write_lambda

Writer = Callable[[Any, "int | None"], Written]  # a sample (and the index of a tuple result's tensor) -> its call, written

SAMPLES_PER_DTYPE = 24  # samples looked at per dtype: the database's first ones cover its argument forms
# the dtypes whose samples are read, and at most how many forms each gives: an op's integer forms beside its float ones
REDRAWS = (1, 2, 3)  # the seeds of the values a form is tried on beside its sample's
DRAWN_DTYPES = {torch.float32: 8, torch.int64: 4, torch.int32: 2, torch.uint8: 2, torch.int8: 2, torch.bool: 2}
DOMAINS = {(0, None): "positive", (-1, 1): "unit", (1, None): "above_one", (0, 1): "probability"}
NAMESPACES = ("torch", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft")


def read_op_db(opinfos: Iterable[Any], source: str, seen: set[int] | None = None) -> list[dict]:
    """An entry for each OpInfo (a refused one says why); `seen`: ids of functions already read (another database's)."""
    seen = set() if seen is None else seen
    entries = []
    for info in opinfos:
        entry = _entry(info, source, seen)
        if entry is not None:
            entries.append(entry)
    return entries


def seen_functions(opinfos: Iterable[Any]) -> set[int]:
    """The ids of the public functions a database's OpInfos call (another database's entry of one is the same op)."""
    return {id(_function(info)) for info in opinfos}


def _entry(info: Any, source: str, seen: set[int]) -> dict | None:
    name = info.name + (f".{info.variant_test_name}" if getattr(info, "variant_test_name", "") else "")
    entry: dict[str, Any] = {"name": f"db.{name}", "opinfo": name, "source": source, "forms": [], "refused": ""}
    function = _function(info)
    if getattr(_function(info), "__name__", "").startswith("_unsafe"):
        return {**entry, "refused": "unchecked: torch does not check its indices, and drawn ones read out of bounds"}
    if _uninitialised(info):
        return {**entry, "refused": "uninitialised: its values are whatever its memory held (torch.empty and kin)"}
    if _random(info):
        return {**entry, "refused": "random: two calls on the same inputs differ, or the database seeds it for each call"}
    call = _public_call(info.name, function, getattr(info, "method_variant", None))
    lam = lambda_of(function) if call is None else None
    if call is None and lam is None:
        return {**entry, "refused": "no public call: the database calls a function of its own"}
    path, method = call if call is not None else ("", False)
    entry["call"] = ast.unparse(lam) if lam is not None else path if not method else f"Tensor.{path}"
    write: Writer = (lambda s, i: write_lambda(lam, s, i)) if lam is not None else (lambda s, i: write_call(path, method, s, i))
    if not method and source != "torch" and id(function) in seen:
        return None  # Thunder's entry of a function torch's database has: the same op
    seen.add(id(function))
    dtypes = _cpu_dtypes(info)
    entry["dtypes"] = sorted(DTYPE_NAMES[d] for d in dtypes)
    if not dtypes:
        return {**entry, "refused": "no CPU kernel for a real dtype (complex only, or CUDA only)"}
    entry["grad"] = bool(getattr(info, "supports_autograd", getattr(info, "supports_grad", False)))
    entry["domain"] = DOMAINS.get(tuple(getattr(info, "domain", (None, None)) or (None, None)), "any")
    entry["kind"] = type(info).__name__  # the database's class of it: ReductionOpInfo, UnaryUfuncInfo, ...
    why: Counter[str] = Counter()
    for dtype in DRAWN_DTYPES:
        if dtype in dtypes:
            _forms_of(info, dtype, write, entry, why)
    if not entry["forms"]:
        return {**entry, "refused": (why.most_common(1)[0][0] if why else "no sample input on the CPU")}
    entry["autocast"] = _autocast(entry, function)
    return entry


def _function(info: Any) -> Callable:
    """The torch function an OpInfo tests: torch's own `op`, Thunder's `torch_reference` (unwrapped: Thunder decorates them)."""
    return inspect.unwrap(getattr(info, "torch_reference", None) or info.op)


def _uninitialised(info: Any) -> bool:
    """Does the op allocate without writing (empty, new_empty_strided, empty_permuted)? Two calls may agree by chance.
    Its function's name, or the database's where the function is a lambda (new_empty's `lambda x, *a: x.new_empty(*a)`)."""
    names = (getattr(_function(info), "__name__", ""), str(getattr(info, "name", "")))
    return any(name.lstrip("_").startswith(("empty", "new_empty")) for name in names)


def _random(info: Any) -> bool:
    """Is the op random: does the database seed it for every call (`wrapper_set_seed`), or do two calls differ?"""
    code = getattr(_function(info), "__code__", None)
    if code is not None and "wrapper_set_seed" in code.co_names:
        return True
    try:
        sample = next(iter(_samples(info, torch.float32)), None)
        if sample is None:
            return False
        function = _function(info)
        first, second = (_run(lambda: function(sample.input, *sample.args, **sample.kwargs)) for _ in range(2))
    except Exception:
        return False
    first, second = (x if isinstance(x, (tuple, list)) else (x,) for x in (first, second))
    return any(isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and not _same(a, b) for a, b in zip(first, second))


def _public_call(name: str, function: Callable, method: Callable | None) -> tuple[str, bool] | None:
    """(dotted path, False) of the public torch function that is `function`; else (name, True) of its Tensor method."""
    candidates = [f"torch.{name}"] + [f"{space}.{getattr(function, '__name__', '')}" for space in NAMESPACES]
    for path in candidates:
        try:
            found = _resolve(path)
        except AttributeError:
            continue
        if found is function:
            return path, False
    if method is not None and getattr(torch.Tensor, getattr(method, "__name__", ""), None) is not None:
        return method.__name__, True
    return None


def _resolve(path: str) -> Any:
    head, *rest = path.split(".")
    found: Any = torch
    for part in rest:
        found = getattr(found, part)
    return found


def _cpu_dtypes(info: Any) -> set[torch.dtype]:
    if hasattr(info, "supported_dtypes"):  # torch's OpInfo
        return {d for d in info.supported_dtypes("cpu") if d in DTYPE_NAMES}
    import thunder  # Thunder's: its own dtypes, one set for every device

    return {d for d in (thunder.dtypes.to_torch_dtype(t) for t in info.dtypes()) if d in DTYPE_NAMES}


@dataclass(frozen=True)
class Sample:
    """A sample input as torch's database gives one: its first argument apart (Thunder's keeps it among its args)."""

    input: Any
    args: tuple
    kwargs: dict


def _samples(info: Any, dtype: torch.dtype) -> list[Sample]:
    if hasattr(info, "supported_dtypes"):  # torch's OpInfo
        return [Sample(s.input, tuple(s.args), dict(s.kwargs)) for s in list(info.sample_inputs("cpu", dtype))[:SAMPLES_PER_DTYPE]]
    import thunder

    found = list(info.sample_inputs("cpu", thunder.dtypes.to_dtype(dtype)))[:SAMPLES_PER_DTYPE]
    return [Sample(s.args[0], tuple(s.args[1:]), dict(s.kwargs)) for s in found if s.args]


def _forms_of(info: Any, dtype: torch.dtype, write: Writer, entry: dict, why: Counter) -> None:
    try:
        samples = _samples(info, dtype)
    except Exception as exc:  # the database's own generator fails on this torch
        why[f"its samples fail on this torch ({type(exc).__name__})"] += 1
        return
    known = {_key(f) for f in entry["forms"]}
    most, added = DRAWN_DTYPES[dtype], 0
    for sample in samples:
        if added >= most:
            return
        try:
            for form in _sample_forms(info, sample, write):
                key = _key(form)
                if key not in known and added < most:
                    known.add(key)
                    entry["forms"].append(form)
                    added += 1
        except Unusable as exc:
            why[str(exc)] += 1


def _key(form: dict) -> tuple:
    """What makes two forms one: the call, and its tensors' shapes and dtypes (an integer form beside a float one)."""
    return form["call"], tuple((tuple(a["shape"]), a["dtype"]) for a in form["args"])


def _sample_forms(info: Any, sample: Any, write: Writer) -> list[dict]:
    """The forms one sample gives: one, or one per tensor of a tuple result."""
    function = _function(info)
    expected = _run(lambda: function(sample.input, *sample.args, **sample.kwargs))
    results = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    if not results or not all(isinstance(r, torch.Tensor) for r in results):
        raise Unusable("its result is no tensor")
    forms = []
    for index, result in enumerate(results):
        written = write(sample, index if isinstance(expected, (tuple, list)) else None)
        try:
            forms.append(_form(written, result, info))
        except Unusable:
            raise
        except Exception as exc:  # the written call fails where the database's own did not
            raise Unusable(f"its call as written raises {type(exc).__name__}") from None
    return forms


def _form(written: Any, expected: torch.Tensor, info: Any) -> dict:
    """A written call checked against the database's own result, with what numfuzz needs of its tensors and result."""
    if expected.is_complex() or expected.dtype not in DTYPE_NAMES:
        raise Unusable(f"its result is {expected.dtype}")
    if expected.layout != torch.strided:
        raise Unusable(f"its result is {expected.layout}")
    first = written.tensors[0]
    call = written.call.replace("{dtype}", f"torch.{str(first.dtype).removeprefix('torch.')}")
    got = _call(call, written.tensors)
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape or got.dtype != expected.dtype or not _same(got, expected):
        raise Unusable("its call as written does not give the database's result")
    if not _same(got, _call(call, written.tensors)):
        raise Unusable("random: two calls on the same inputs differ")
    args = [_arg(call, written, k) for k in range(len(written.tensors))]
    try:  # three draws: one may repeat the sample's shape by chance (a 0-d mask drawn True, as the sample's was)
        redrawn = [_call(call, [_drawn(a, torch.Generator().manual_seed(k), float_dtype=t.dtype) for a, t in zip(args, written.tensors)]) for k in REDRAWS]
    except Exception as exc:  # a positive-definite matrix, a valid permutation: values numfuzz does not draw
        raise Unusable(f"it needs inputs of a kind numfuzz does not draw: other values raise {type(exc).__name__}") from None
    if any(r.shape != expected.shape for r in redrawn):
        raise Unusable("its result's shape depends on the values")
    out = "same" if expected.dtype == first.dtype else DTYPE_NAMES[expected.dtype]
    try:
        written.call.format(*["x"] * len(written.tensors), dtype="x")
    except (ValueError, IndexError, KeyError):
        raise Unusable("its call holds braces of its own") from None
    return {"call": written.call, "args": args, "out": out, "shape": list(expected.shape), "meta": _on_meta(call, written.tensors, expected)}


def _arg(call: str, written: Any, k: int) -> dict:
    tensor = written.tensors[k]
    arg: dict[str, Any] = {"shape": list(tensor.shape), "dtype": DTYPE_NAMES[tensor.dtype]}
    kind = written.kinds[k]
    if kind == "int":  # values where any integers of the dtype's small range do, else positions within the sample's
        kind = "value" if _takes(call, written.tensors, k, torch.randint(-100, 100, tensor.shape).to(tensor.dtype)) else "index"
    arg["kind"] = kind
    if tensor.dtype not in FLOATS and tensor.numel():
        arg["range"] = [int(tensor.min()), int(tensor.max())]
    if tensor.dtype in FLOATS:
        arg["domain"] = _domain(call, written.tensors, k)
    return arg


# Values a float tensor is tried with, widest first: the first the call takes is its domain (`op_spec.DOMAINS`)
TRIED_DOMAINS = (
    ("any", lambda shape, g: torch.randn(shape, generator=g, dtype=torch.float64) * 3),
    ("probability", lambda shape, g: torch.rand(shape, generator=g, dtype=torch.float64) * 0.9 + 0.05),
    ("positive", lambda shape, g: torch.rand(shape, generator=g, dtype=torch.float64) + 0.5),
)


def _domain(call: str, tensors: list[torch.Tensor], k: int) -> str:
    """The widest domain whose values the call takes at tensor k (a probability for binary_cross_entropy, a variance)."""
    for name, draw in TRIED_DOMAINS:
        if _takes(call, tensors, k, draw(tensors[k].shape, torch.Generator().manual_seed(k)).to(tensors[k].dtype)):
            return name
    raise Unusable("it needs inputs of a kind numfuzz does not draw: other values raise")


def _takes(call: str, tensors: list[torch.Tensor], k: int, other: torch.Tensor) -> bool:
    """Does the call take `other` in place of tensor k?"""
    try:
        _call(call, [other if j == k else t for j, t in enumerate(tensors)])
        return True
    except Exception:
        return False


def _on_meta(call: str, tensors: list[torch.Tensor], expected: torch.Tensor) -> bool:
    """Does the call run on meta tensors, with the real result's shape? (Then numfuzz infers its shapes at other sizes.)"""
    try:
        got = _call(call, [t.to("meta") for t in tensors])
    except Exception:
        return False
    return isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == expected.dtype


def _autocast(entry: dict, function: Callable) -> str:
    """The op's autocast policy on the CPU, from its first float form: bf16 out of fp32 inputs, or fp32 out of bf16 ones;
    UNMEASURED where the call raises in a region, or gives bf16 though the op takes no bf16 (linalg.pinv: a matmul
    inside casts, eager's kernel and not a policy any trace sees): such an op is kept out of regions."""
    form = next((f for f in entry["forms"] if all(a["dtype"] == "fp32" or a["kind"] != "value" for a in f["args"])), None)
    if form is None:
        return ""
    rng = torch.Generator().manual_seed(0)
    tensors = [_drawn(a, rng) for a in form["args"]]
    call = form["call"].replace("{dtype}", "torch.float32")
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            lowered = _call(call, tensors)
            raised = _call(call, [t.to(torch.bfloat16) if t.dtype == torch.float32 else t for t in tensors]) if "bf16" in entry["dtypes"] else None
    except Exception:
        return UNMEASURED
    if raised is None:
        return UNMEASURED if lowered.dtype == torch.bfloat16 else ""
    if lowered.dtype == torch.bfloat16 and form["out"] == "same":
        return "lower"
    return "fp32" if raised.dtype == torch.float32 and form["out"] == "same" else ""


def _drawn(arg: dict, rng: torch.Generator, float_dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Other values for a form's tensor: floats in [0.5, 1.5) (inside most domains), integers within the sample's range."""
    dtype = _torch_dtype(arg["dtype"])
    if dtype in FLOATS:
        return (torch.rand(arg["shape"], generator=rng, dtype=torch.float64) + 0.5).to(float_dtype)
    low, high = arg.get("range", [0, 1])
    return torch.randint(low, high + 1, arg["shape"], generator=rng).to(dtype)


def _torch_dtype(name: str) -> torch.dtype:
    return {v: k for k, v in DTYPE_NAMES.items()}[name]


def _call(call: str, tensors: list[torch.Tensor]) -> Any:
    names = [f"a{k}" for k in range(len(tensors))]
    fn = eval(f"lambda {', '.join(names)}: " + call.format(*names), {"torch": torch})  # noqa: S307 - the database's own call, as written
    with torch.no_grad():
        return fn(*tensors)


def _run(fn: Callable[[], Any]) -> Any:
    try:
        with torch.no_grad():
            return fn()
    except Exception as exc:
        raise Unusable(f"the sample raises ({type(exc).__name__})") from None


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype in FLOATS:
        return bool(torch.equal(torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0)) and torch.equal(a.isnan(), b.isnan()))
    return bool(torch.equal(a, b))
