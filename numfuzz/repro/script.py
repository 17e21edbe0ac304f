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
from numfuzz.repro.literals import tensor_literal
from numfuzz.repro.metadata_check import GRAD_METADATA_ASSERTION, METADATA_ASSERTION, metadata_source
from numfuzz.repro.runs_source import RUNS_SOURCE, VERDICT_LOOP, grad_runs_source, second_size_source, verdict_assertions
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
{grad_runs_source(upstream) if grad else RUNS_SOURCE}
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


{"" if grad else EAGER_RAISES_SOURCE}eager, got, again, reference = run_all()
{fine_reference_source(case)}for e, g in zip(eager[0], got[0]):
    assert g.dtype == e.dtype and g.shape == e.shape, f"compiled gives {{g.dtype}}{{tuple(g.shape)}}, eager {{e.dtype}}{{tuple(e.shape)}}"
for a, b in zip(got[0], again):
    assert torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)) and torch.equal(a.isnan(), b.isnan()), "two runs on the same inputs differ"

{VERDICT_LOOP.format(eager="eager", got="got", reference="reference")}
{verdict_assertions()}
{"" if grad else POSITION_ASSERTION}{GRAD_METADATA_ASSERTION if grad else METADATA_ASSERTION}{second_size_source(case, target)}
print("OK: the compiled result is at least as accurate as eager, and laid out as eager's")
'''


# Where eager raises on the inputs, the compiled program must raise too (`judge.error_parity`): eager runs alone first.
EAGER_RAISES_SOURCE = """def eager_error():
    try:
        with torch.no_grad():
            for xs in samples:
                fn(*lay_out([x.to(DEVICE) for x in xs]), *SCALARS)
    except Exception as error:
        return error
    return None


refused = eager_error()
if refused is not None:
    try:
        with torch.no_grad():
            for xs in samples:
                compiled(*lay_out([x.to(DEVICE) for x in xs]), *SCALARS)
    except Exception as error:
        print(f"OK: eager raises {type(refused).__name__}, and so does the compiled program ({type(error).__name__})")
        raise SystemExit(0)
    raise AssertionError(f"eager raises {type(refused).__name__}: {refused}; the compiled program returns outputs")

"""


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


POSITION_ASSERTION = """moved = position_dependence([list(s) for s in samples], eager, reference, got, [FORMATS[x.dtype].name if x.dtype in FORMATS else "integer" for x in eager[0]])
assert moved is None, f"the compiled result depends on where a value sits: {moved}"
"""
