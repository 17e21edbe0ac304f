"""The standalone repro script.

The script needs only torch and thunder (numpy comes with thunder), plus the user's module when
the target's executors came from `--import`. It holds `fn` and its float64 reference exactly as
`numfuzz.program.lowering.lower` writes them, the inputs as exact literals, and numfuzz's verdict
rule copied from `numfuzz.judge.oracle` at writing time (source and constants), so that its final
assertion fails exactly when numfuzz's oracle says the compiled result is less accurate than eager.
Each target emits its own compile call (`repro_source`), so nothing here knows the targets.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import Sequence

import torch

from numfuzz.corpus.case import Case
from numfuzz.judge import nonfinite_class, oracle, position
from numfuzz.program import dtypes
from numfuzz.program.dtypes import TORCH_DTYPES
from numfuzz.program.fine import fine_outputs, is_fine
from numfuzz.program.ir import TensorSpec
from numfuzz.program.layout import LAYOUT_SOURCE
from numfuzz.program.lowering import lower
from numfuzz.program.scalars import values as scalar_values
from numfuzz.program.values import dtype_name
from numfuzz.repro.metadata_check import GRAD_METADATA_ASSERTION, METADATA_ASSERTION, metadata_source
from numfuzz.targets import Target
from numfuzz.targets.compile_modes import configured


class ReproError(ValueError):
    """No standalone repro can be written for this case (one line for the user)."""


# Shared by the script and the issue text, so that both print the same table.
TABLE_SOURCE = '''\
def error_table(k, dtype, elements, rows):
    """rows: (who, max ulp, mean ulp, max abs, max rel) against the float64 reference."""
    lines = [f"{k} ({dtype}, {elements} element{'s' * (elements != 1)}): error against the float64 reference",
             f"{'':>10}{'max ulp':>11}{'mean ulp':>11}{'max abs':>11}{'max rel':>11}"]
    for who, *numbers in rows:
        lines.append(f"{who:>10}" + "".join(f"{x:>11.4g}" for x in numbers))
    return "\\n".join(lines)
'''


_table_namespace: dict = {}
exec(TABLE_SOURCE, _table_namespace)
error_table = _table_namespace["error_table"]


def _float_literal(x: float) -> str:
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


def _nested(values: list | float) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return _float_literal(values)


def tensor_literal(t: torch.Tensor, device: str | None = None) -> str:
    """Source that rebuilds `t` exactly (NaN payloads aside): every value of t is exact in float64."""
    dtype = TORCH_DTYPES[dtype_name(t.dtype)]
    where = f", device={device!r}" if device else ""
    if not t.is_floating_point():  # indices: integers as written
        return f"torch.tensor({t.detach().cpu().tolist()!r}, dtype={dtype}{where})"
    values = t.detach().to("cpu", torch.float64)
    flat = values.reshape(-1)
    if flat.numel() > 1 and bool((flat.view(torch.int64) == flat[0].view(torch.int64)).all()):
        return f"torch.full({tuple(t.shape)!r}, {_float_literal(float(flat[0]))}, dtype={dtype}{where})"
    return f"torch.tensor({_nested(values.tolist())}, dtype={dtype}{where})"


def compile_call(target: Target) -> tuple[list[str], str]:
    """(import lines, expression) that compile `fn` as `target` does: the target says how itself."""
    emit = getattr(target, "repro_source", None)
    if not callable(emit):
        raise ReproError(f"no standalone repro for target {target.name!r}: give it a repro_source() method")
    return emit()


def _guard(target: Target) -> str:
    """Script lines that fail clearly (not with an assertion) when the target cannot exist there."""
    guard = getattr(target, "repro_guard", None)
    return guard() if callable(guard) else ""


def user_code_lines(imports: Sequence[str], fallback_here: bool) -> str:
    """Lines that import the user's modules (which register the executors under test)."""
    if not imports:
        return ""
    lines = ["", "# The executors under test are registered by the reporter's code:"]
    folders = [str(Path(spec).parent) for spec in imports if spec.endswith(".py")]
    if folders:
        here = ["str(pathlib.Path(__file__).resolve().parent)"] if fallback_here else []
        lines += ["import pathlib, sys" if fallback_here else "import sys",
                  "sys.path[:0] = [" + ", ".join([repr(f) for f in dict.fromkeys(folders)] + here) + "]"]  # fmt: skip
    for spec in imports:
        name = Path(spec).stem if spec.endswith(".py") else spec
        lines.append(f"import {name}  # noqa: E402,F401")
    return "\n".join(lines) + "\n"


def _rule_source() -> str:
    constants = [
        f"{name} = {value!r}"
        for module in (oracle, nonfinite_class)
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, (int, float))
    ]
    formats = "".join(f"\n    {TORCH_DTYPES[name]}: {fmt!r}," for name, fmt in dtypes.FORMATS.items())
    parts = [
        "\n".join(constants),
        inspect.getsource(dtypes.FloatFormat),
        f"FORMATS = {{{formats}\n}}",
        *(
            inspect.getsource(f)
            for f in (oracle.ulp, oracle.ulp_error, oracle.noise_floor, oracle.worse_than, oracle._worse_where_finite, oracle._max, oracle._mean)
        ),
        inspect.getsource(nonfinite_class.classes),
        inspect.getsource(nonfinite_class.class_lost),
    ]
    return "\n\n".join(p.strip() + "\n" for p in parts)


def _position_source() -> str:
    """The position check (`numfuzz.judge.position`), as the script runs it."""
    parts = [
        "def check_dtype(name):\n    return next(fmt for fmt in FORMATS.values() if fmt.name == name)",
        'def is_integer(name):\n    return name == "integer"  # an integer or bool output: judged exactly, not by position',
        *(inspect.getsource(f) for f in (position.repeated_block, position.ends_along, position.same_values, position.position_dependence)),
    ]
    return "\n\n".join(p.strip() + "\n" for p in parts)


def layouts_source(specs: Sequence[TensorSpec]) -> str:
    """`lay_out`, which turns a sample's inputs into the views their layouts describe, as numfuzz does (`program.layout`)."""
    if all(spec.layout is None for spec in specs):
        return "def lay_out(xs):\n    return list(xs)  # every input is contiguous\n"
    layouts = ", ".join("None" if spec.layout is None else repr(tuple(spec.layout.full(len(spec.shape)))) for spec in specs)
    return f"""# How each input lies in memory (None: contiguous): (dims in memory order, steps, dims of stride 0, offset, gaps).
LAYOUTS = [{layouts}]


{LAYOUT_SOURCE}

def lay_out(xs):
    return [x if layout is None else laid_out(x, *layout) for x, layout in zip(xs, LAYOUTS)]
"""


def script_source(case: Case, target: Target, device: str, imports: Sequence[str] = (), title: str = "") -> str:
    """The standalone repro script for `case` compiled by `target` on `device` (as the case's run asks: sizes, options)."""
    target = configured(target, case.run)
    compile_imports, compile_expr = compile_call(target)
    samples = ",\n".join("    (" + "".join(tensor_literal(t) + ", " for t in sample).rstrip(" ") + ")" for sample in case.tensors())
    grad = case.run.grad
    upstream = ",\n".join("    (" + "".join(tensor_literal(t) + ", " for t in row).rstrip(" ") + ")" for row in case.grad_tensors() or [])
    return f'''"""{title or "numfuzz repro"}

Standalone repro written by numfuzz. It runs `fn` in eager PyTorch and compiled with
`{compile_expr}`,
compares both with a float64 reference element by element, in ULPs of the output dtype,
and fails with an AssertionError while the compiled result is less accurate than eager (a NaN or
inf that eager and float64 agree on, lost, among them), while
the same input values at two positions give the compiled program different results, or while an
output is laid out unlike eager's (strides, the memory it shares, whether it can be viewed).
"""

import math
from dataclasses import dataclass

import numpy as np  # installed with thunder
import torch
import torch.nn.functional as F
{chr(10).join(compile_imports)}
{user_code_lines(list(imports), fallback_here=True)}
DEVICE = {device!r}
{threads_source(case)}

{lower(case.graph)}
{scalars_source(case)}
# The float64 reference: the same program, every op in float64; an explicit cast still rounds{" (its gradient too)" if grad else ""}.
{lower(case.graph, fn_name="fn_fp64", reference=True, grad=grad)}

# The inputs, exactly as found: one tuple per sample.
samples = [
{samples},
]

{layouts_source(case.graph.inputs)}
{_grad_runs_source(upstream) if grad else RUNS_SOURCE}
{_guard(target)}compiled = {compile_expr}

# ---- numfuzz's verdict rule, copied from numfuzz/judge/oracle.py when this file was written ----
{_rule_source()}

# ---- numfuzz's position check, copied from numfuzz/judge/position.py ----
{_position_source()}

# ---- numfuzz's metadata check, copied from numfuzz/judge/metadata.py ----
{metadata_source(case, target)}

{TABLE_SOURCE}

def flat(runs, k):
    return np.concatenate([run[k].detach().to("cpu", torch.float64).reshape(-1).numpy() for run in runs])


eager, got, again, reference = run_all()
{fine_reference_source(case)}for e, g in zip(eager[0], got[0]):
    assert g.dtype == e.dtype and g.shape == e.shape, f"compiled gives {{g.dtype}}{{tuple(g.shape)}}, eager {{e.dtype}}{{tuple(e.shape)}}"
for a, b in zip(got[0], again):
    assert torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)) and torch.equal(a.isnan(), b.isnan()), "two runs on the same inputs differ"

{VERDICT_LOOP.format(eager="eager", got="got", reference="reference")}
assert not less_accurate, f"the compiled result is less accurate than eager (or, for integers, other than eager's) on {{', '.join(label(k) for k in less_accurate)}}"
{"" if grad else POSITION_ASSERTION}{GRAD_METADATA_ASSERTION if grad else METADATA_ASSERTION}{second_size_source(case, target)}
print("OK: the compiled result is at least as accurate as eager, and laid out as eager's")
'''


def fine_reference_source(case: Case) -> str:
    """For a float64 program: its reference finer than float64 (numfuzz.program.fine), written out, where the float64
    one would be eager itself; "" for any other program."""
    if not is_fine(case.graph) or case.run.grad:
        return ""
    source, scalars = lower(case.graph, reference=True), list(scalar_values(case.graph))
    rows = []
    for sample in case.tensors():
        outputs = fine_outputs(source, [t.to(torch.float64).numpy() for t in sample], scalars)
        if outputs is None:
            return ""  # the numbers could not answer for a sample: the float64 reference stands
        rows.append("    (" + "".join(tensor_literal(torch.from_numpy(o)) + ", " for o in outputs).rstrip(" ") + "),")
    return (
        "# A float64 program: the reference is finer than float64 (numfuzz evaluated it at 160 bits with mpmath and\n"
        "# rounded each output once), written out: fn_fp64 would be eager itself.\n"
        "reference = [\n" + "\n".join(rows) + "\n]\n"
    )


def threads_source(case: Case) -> str:
    """The intra-op threads the case ran with, set before anything compiles ("" for the machine's own)."""
    if not case.run.threads:
        return ""
    return f"torch.set_num_threads({case.run.threads})  # numfuzz ran the case with this many intra-op threads: the compiled code depends on it\n"


def scalars_source(case: Case) -> str:
    """`SCALARS`: the Python numbers the program takes as arguments (`program.scalars`), passed at every call."""
    found = scalar_values(case.graph)
    note = "# The Python scalars fn takes after its tensors, passed at every call (not left to their defaults)." if found else "# fn takes no scalar arguments."
    return f"{note}\nSCALARS = {found!r}\n"


# The verdict loop over one set of runs: `less_accurate` lists the outputs the rule flags.
VERDICT_LOOP = """less_accurate = []
for k in range(len({eager}[0])):
    if not ({eager}[0][k].is_floating_point() or {eager}[0][k].is_complex()):  # an integer or bool output: eager's values are exact
        differ = sum(int((e[k] != g[k]).sum()) for e, g in zip({eager}, {got}))
        print(f"{{label(k)}} ({{{eager}[0][k].dtype}}): {{differ}} elements differ from eager's")
        if differ:
            less_accurate.append(k)
        continue
    fmt = FORMATS[{eager}[0][k].dtype]
    ref, e, t = flat({reference}, k), flat({eager}, k), flat({got}, k)
    if not ref.size:
        continue  # an integer input's empty gradient
    lost = class_lost(ref, e, t)  # a NaN or inf that eager and float64 agree on, which the compiled result does not give
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    ref, e, t = ref[keep], e[keep], t[keep]
    e_err, t_err = ulp_error(e, ref, fmt), ulp_error(t, ref, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        e_abs, t_abs = np.abs(e - ref), np.abs(t - ref)
        scale = np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    both = np.isfinite(e_err) & np.isfinite(t_err)
    rows = [(who, _max(err), _mean(err[both]), _max(dev), _max(dev / scale)) for who, err, dev in (("eager", e_err, e_abs), ("compiled", t_err, t_abs))]
    print(error_table(label(k), fmt.name, ref.size, rows))
    if lost.any():
        print(f"{{'':>10}}{{int(lost.sum())}} element(s) where eager and float64 agree on NaN or inf and the compiled result does not")
    if lost.any() or (np.isfinite(e) & ~np.isfinite(t)).any() or worse_than(t_err, e_err, noise_floor(fmt)):
        less_accurate.append(k)
"""


def second_size_source(case: Case, target: Target) -> str:
    """The script's second-size check ("" without a second size): the same compiled program run at the
    second size's inputs, without recompiling where the target can tell, and judged by the same rule."""
    if not case.has_second_call:
        return ""
    rows = _rows_source(case.second_tensors())
    second = case.second_graph()
    lay = "lay_out" if case.second is None else "list"  # a second size's inputs are contiguous
    call = "second size" if case.second is not None else "second call"
    count = getattr(target, "compile_count_source", None)
    imports, expr = count() if callable(count) else ("", "")
    before = f"{imports + chr(10) if imports else ''}compiles_before = {expr}\n" if expr else ""
    after = f"recompiled = {expr} != compiles_before\n" if expr else "recompiled = None  # this target cannot tell\n"
    what = []
    if case.second is not None:
        what.append("at other sizes of its dynamic dims (" + ", ".join(str(tuple(s)) for s in case.second.shapes) + ")")
    if scalar_values(second) != scalar_values(case.graph):
        what.append("with other values of its scalar arguments")
    return f"""
# ---- the {call}: the same compiled program, {" and ".join(what)} ----
second_samples = [
{rows},
]
SCALARS2 = {scalar_values(second)!r}
{before}{_second_runs_source(case, lay)}
{after}print("{call}:", "cannot tell whether it recompiled" if recompiled is None else "recompiled (a guard failed)" if recompiled else "the same compiled program")
{VERDICT_LOOP.format(eager="eager2", got="got2", reference="reference2")}
assert not less_accurate, f"at the {call}, the compiled result is less accurate than eager on {{', '.join(label(k) for k in less_accurate)}}"
differs = metadata_differences(NAMES, as_tuple(eager2[0]), as_tuple(got2[0]), {"None" if case.run.grad else "inputs2[0]"}, STRIDES)
assert not differs, f"at the {call}, the compiled outputs are laid out unlike eager's: {{'; '.join(differs)}}"
"""


def _rows_source(rows: list[list]) -> str:
    return ",\n".join("    (" + "".join(tensor_literal(t) + ", " for t in row).rstrip(" ") + ")" for row in rows)


def _second_runs_source(case: Case, lay: str) -> str:
    """The second call's runs of eager, the compiled program and float64; with gradients, for the second call's upstream ones."""
    if not case.run.grad:
        return f"""with torch.no_grad():
    inputs2 = [[x.to(DEVICE) for x in sample] for sample in second_samples]
    eager2 = [fn(*{lay}(xs), *SCALARS2) for xs in inputs2]
    got2 = [compiled(*{lay}(xs), *SCALARS2) for xs in inputs2]
    reference2 = [fn_fp64(*{lay}([x.to(torch.float64) if x.is_floating_point() else x for x in sample]), *SCALARS2) for sample in second_samples]"""
    return f"""# the upstream gradients there: the first call's, tiled to each output's shape at this call
upstream2 = [
{_rows_source(case.second_grad_tensors() or [])},
]
inputs2 = [[x.to(DEVICE) for x in sample] for sample in second_samples]
ups2 = [[g.to(DEVICE) for g in row] for row in upstream2]
eager2 = [with_grads(fn, xs, gs, SCALARS2, {lay}) for xs, gs in zip(inputs2, ups2)]
got2 = [with_grads(compiled, xs, gs, SCALARS2, {lay}) for xs, gs in zip(inputs2, ups2)]
reference2 = [with_grads(fn_fp64, as64(xs), as64(gs), SCALARS2, {lay}) for xs, gs in zip(second_samples, upstream2)]"""


# The script's runs of eager, the compiled program and float64: outputs only.
RUNS_SOURCE = """

def as64(xs):
    return [x.to("cpu", torch.float64) if x.is_floating_point() else x.to("cpu") for x in xs]  # indices stay integers


def run_all():
    with torch.no_grad():
        inputs = [[x.to(DEVICE) for x in sample] for sample in samples]
        eager = [fn(*lay_out(xs), *SCALARS) for xs in inputs]
        got = [compiled(*lay_out(xs), *SCALARS) for xs in inputs]
        again = compiled(*lay_out(inputs[0]), *SCALARS)
        reference = [fn_fp64(*lay_out(as64(sample)), *SCALARS) for sample in samples]
    return eager, got, again, reference


def label(k):
    return f"output {k}"
"""

POSITION_ASSERTION = """moved = position_dependence([list(s) for s in samples], eager, reference, got, [FORMATS[x.dtype].name if x.dtype in FORMATS else "integer" for x in eager[0]])
assert moved is None, f"the compiled result depends on where a value sits: {moved}"
"""


def _grad_runs_source(upstream: str) -> str:
    """The script's runs with gradients: each run gives its outputs, then the gradient of every input."""
    return f"""
# The upstream gradients of the outputs, exactly as found: one tuple per sample.
upstream = [
{upstream},
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
    return f"output {{k}}" if k < OUTPUTS else f"the gradient of input x{{k - OUTPUTS}}"
"""
