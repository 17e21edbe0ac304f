"""Upstream-ready repros: a standalone script and an issue text in Markdown.

The script needs only torch and thunder (numpy comes with thunder), plus the user's module when
the target's executors came from `--import`. It holds `fn` and its float64 reference exactly as
`numfuzz.lowering.lower` writes them, the inputs as exact literals, and numfuzz's verdict rule
copied from `numfuzz.oracle` at writing time (source and constants), so that its final assertion
fails exactly when numfuzz's oracle says the compiled result is less accurate than eager.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch

from numfuzz import dtypes, oracle
from numfuzz.cases import device_name, versions
from numfuzz.corpus import Case, write_atomic
from numfuzz.execute import Outcome
from numfuzz.lowering import TORCH_DTYPES, lower
from numfuzz.ops import infer_specs
from numfuzz.signature import Signature, flagged_output, severity, stored_signature, symptom_of
from numfuzz.targets import Target
from numfuzz.targets.builtin import Eager, Inductor, Thunder
from numfuzz.values import torch_dtype
from numfuzz.verdicts import Verdict


class ReproError(ValueError):
    """No standalone repro can be written for this case (one line for the user)."""


# Shared by the script and the issue text, so that both print the same table.
TABLE_SOURCE = '''\
def error_table(k, dtype, elements, rows):
    """rows: (who, max ulp, mean ulp, max abs, max rel) against the float64 reference."""
    lines = [f"output {k} ({dtype}, {elements} element{'s' * (elements != 1)}): error against the float64 reference",
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
    dtype = TORCH_DTYPES[next(name for name in TORCH_DTYPES if torch_dtype(name) == t.dtype)]
    where = f", device={device!r}" if device else ""
    values = t.detach().to("cpu", torch.float64)
    flat = values.reshape(-1)
    if flat.numel() > 1 and bool((flat.view(torch.int64) == flat[0].view(torch.int64)).all()):
        return f"torch.full({tuple(t.shape)!r}, {_float_literal(float(flat[0]))}, dtype={dtype}{where})"
    return f"torch.tensor({_nested(values.tolist())}, dtype={dtype}{where})"


def compile_call(target: Target) -> tuple[list[str], str]:
    """(import lines, expression) that compile `fn` as `target` does."""
    custom = getattr(target, "repro_source", None)  # a plugin target may say how itself
    if callable(custom):
        return custom()
    if isinstance(target, Thunder):
        executors = "[" + ", ".join(f"get_executor({name!r})" for name in target.executors) + "]"
        options = "".join(f", {k}={v!r}" for k, v in target.options.items())
        if target.fx:
            args = f", executors={executors}" if target.executors else ""
            return ["from thunder.dynamo import thunderfx", "from thunder.extend import get_executor"], f"thunderfx(fn{args}{options})"
        return ["import thunder", "from thunder.extend import get_executor"], f"thunder.jit(fn, executors={executors}{options})"
    if isinstance(target, Inductor):
        return [], f"torch.compile(fn, backend=\"inductor\", dynamic=False, options={target.options or None!r})"
    if isinstance(target, Eager):
        return [], "fn"
    raise ReproError(f"no standalone repro for target {target.name!r}: give it a repro_source() method")


def _executor_guard(target: Target) -> str:
    """In the script: fail with a clear error, not an assertion, when the user's executors are missing."""
    names = getattr(target, "executors", None)
    if not isinstance(target, Thunder) or not names:
        return ""
    return (
        f"missing = [name for name in {tuple(names)!r} if get_executor(name) is None]\n"
        "if missing:  # not the bug: the code that registers these executors was not imported\n"
        "    raise RuntimeError(f\"thunder has no executor {missing}\")\n\n"
    )


def _user_code(imports: Sequence[str], fallback_here: bool) -> str:
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
    constants = [f"{name} = {value!r}" for name, value in vars(oracle).items() if name.isupper() and isinstance(value, (int, float))]
    formats = "".join(f"\n    {TORCH_DTYPES[name]}: {fmt!r}," for name, fmt in dtypes.FORMATS.items())
    parts = [
        "\n".join(constants),
        inspect.getsource(dtypes.FloatFormat),
        f"FORMATS = {{{formats}\n}}",
        *(inspect.getsource(f) for f in (oracle.ulp, oracle.ulp_error, oracle.noise_floor, oracle._worse_than, oracle._max, oracle._mean)),
    ]
    return "\n\n".join(p.strip() + "\n" for p in parts)


def script_source(case: Case, target: Target, device: str, imports: Sequence[str] = (), title: str = "") -> str:
    """The standalone repro script for `case` compiled by `target` on `device`."""
    compile_imports, compile_expr = compile_call(target)
    samples = ",\n".join("    (" + "".join(tensor_literal(t) + ", " for t in sample).rstrip(" ") + ")" for sample in case.tensors())
    return f'''"""{title or "numfuzz repro"}

Standalone repro written by numfuzz. It runs `fn` in eager PyTorch and compiled with
`{compile_expr}`,
compares both with a float64 reference element by element, in ULPs of the output dtype,
and fails with an AssertionError while the compiled result is less accurate than eager.
"""

import math
from dataclasses import dataclass

import numpy as np  # installed with thunder
import torch
import torch.nn.functional as F
{chr(10).join(compile_imports)}
{_user_code(list(imports), fallback_here=True)}
DEVICE = {device!r}


{lower(case.graph)}

# The float64 reference: the same program, every op in float64; an explicit cast still rounds.
{lower(case.graph, fn_name="fn_fp64", reference=True)}

# The inputs, exactly as found: one tuple per sample.
samples = [
{samples},
]

{_executor_guard(target)}compiled = {compile_expr}

# ---- numfuzz's verdict rule, copied from numfuzz/oracle.py when this file was written ----
{_rule_source()}

{TABLE_SOURCE}

def flat(runs, k):
    return np.concatenate([run[k].detach().to("cpu", torch.float64).reshape(-1).numpy() for run in runs])


with torch.no_grad():
    inputs = [[x.to(DEVICE) for x in sample] for sample in samples]
    eager = [fn(*xs) for xs in inputs]
    got = [compiled(*xs) for xs in inputs]
    again = compiled(*inputs[0])
    reference = [fn_fp64(*[x.to(torch.float64) for x in sample]) for sample in samples]

for e, g in zip(eager[0], got[0]):
    assert g.dtype == e.dtype and g.shape == e.shape, f"compiled gives {{g.dtype}}{{tuple(g.shape)}}, eager {{e.dtype}}{{tuple(e.shape)}}"
for a, b in zip(got[0], again):
    assert torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)) and torch.equal(a.isnan(), b.isnan()), "two runs on the same inputs differ"

less_accurate = []
for k in range(len(eager[0])):
    fmt = FORMATS[eager[0][k].dtype]
    ref, e, t = flat(reference, k), flat(eager, k), flat(got, k)
    keep = np.isfinite(ref) & (np.abs(ref) <= fmt.max_value)
    ref, e, t = ref[keep], e[keep], t[keep]
    e_err, t_err = ulp_error(e, ref, fmt), ulp_error(t, ref, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        e_abs, t_abs = np.abs(e - ref), np.abs(t - ref)
        scale = np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    both = np.isfinite(e_err) & np.isfinite(t_err)
    rows = [(who, _max(err), _mean(err[both]), _max(dev), _max(dev / scale)) for who, err, dev in (("eager", e_err, e_abs), ("compiled", t_err, t_abs))]
    print(error_table(k, fmt.name, ref.size, rows))
    if (np.isfinite(e) & ~np.isfinite(t)).any() or _worse_than(t_err, e_err, noise_floor(fmt)):
        less_accurate.append(k)

assert not less_accurate, f"the compiled result is less accurate than eager on output(s) {{less_accurate}}"
print("OK: the compiled result is at least as accurate as eager")
'''


def snippet_source(case: Case, target: Target, device: str, imports: Sequence[str] = ()) -> str:
    """A short snippet for the issue text, in the style of a hand-written report."""
    compile_imports, compile_expr = compile_call(target)
    same = lower(case.graph, reference=True) == lower(case.graph)
    reference = "" if same else "\n\n# float64 reference: every op in float64; an explicit cast still rounds.\n" + lower(case.graph, "fn_fp64", reference=True).rstrip()
    ref_name = "fn" if same else "fn_fp64"
    rows = case.tensors()
    names = [f"x{i}" for i in range(len(case.graph.inputs))]
    if len(rows) == 1:
        inputs = "\n".join(f"{n} = {tensor_literal(t, device)}" for n, t in zip(names, rows[0]))
        inputs += f"\nsamples = [({', '.join(names)},)]"
    else:
        inputs = "samples = [\n" + "".join("    (" + ", ".join(tensor_literal(t, device) for t in row) + ",),\n" for row in rows) + "]"
    return f"""import torch
import torch.nn.functional as F
{chr(10).join(compile_imports)}
{_user_code(list(imports), fallback_here=False)}

{lower(case.graph).rstrip()}{reference}


{inputs}

compiled = {compile_expr}
for args in samples:
    expected = {ref_name}(*[x.double() for x in args])
    for who, f in (("eager", fn), ("compiled", compiled)):
        errors = [(out.double() - ref).abs().max().item() for out, ref in zip(f(*args), expected)]
        print(f"{{who:>8}}: greatest absolute difference from float64 per output: {{errors}}")
"""


def _culprit_call(case: Case, signature: Signature | None) -> str:
    if signature and signature.ops:
        return ", ".join(f"`{op}`" for op in signature.ops)
    return ", ".join(f"`{op}`" for op in dict.fromkeys(n.op for n in case.graph.nodes)) or "the program"


def title_of(case: Case, outcome: Outcome, signature: Signature | None) -> str:
    what = _culprit_call(case, signature)
    dtype = f" on {signature.dtype}" if signature and signature.dtype else ""
    if outcome.verdict is Verdict.LESS_ACCURATE:
        bits = severity(outcome)
        return f"{case.target}: {what}{dtype} is less accurate than eager against float64 ({bits:.1f} bits lost)"
    if outcome.verdict is Verdict.NONFINITE:
        return f"{case.target}: {what}{dtype} gives inf/nan where eager and float64 are finite"
    symptom = symptom_of(outcome)
    _, _, exception = symptom.partition(":")
    phrase = _PHRASES.get(outcome.verdict, outcome.verdict.value.replace("_", " "))
    return f"{case.target}: {what} {phrase}" + (f" ({exception})" if exception else "")


_PHRASES = {
    Verdict.CRASH_COMPILE: "raises while compiling",
    Verdict.CRASH_RUN: "raises when run again",
    Verdict.MISMATCH: "returns another shape or dtype than eager",
    Verdict.NONDETERMINISTIC: "gives different results on the same inputs",
    Verdict.TIMEOUT: "hangs",
    Verdict.OOM: "runs out of memory",
    Verdict.SEGFAULT: "kills the process (SIGSEGV)",
    Verdict.ABORT: "aborts the process",
    Verdict.EQUAL: "is as accurate as eager here (no finding)",
    Verdict.MORE_ACCURATE: "is more accurate than eager here (no finding)",
}


def _outcome_tables(outcome: Outcome) -> str:
    if not outcome.outputs:
        return f"{outcome.verdict.value}: {outcome.detail}"
    return "\n\n".join(
        error_table(o.index, o.dtype, o.elements, [
            ("eager", o.eager_max_ulp, o.eager_mean_ulp, o.eager_max_abs, o.eager_max_rel),
            ("compiled", o.target_max_ulp, o.target_mean_ulp, o.target_max_abs, o.target_max_rel),
        ]) + f"\n{'':>10}worse on {o.worse} elements, better on {o.better}: {o.verdict}"
        for o in outcome.outputs
    )  # fmt: skip


def _what_happens(outcome: Outcome) -> str:
    if not outcome.verdict.is_finding:
        return f"is no finding here: {outcome.verdict.value}."
    if flagged_output(outcome) is not None:
        return f"is further from the float64 reference than eager PyTorch is ({outcome.verdict.value})."
    return f"fails ({outcome.verdict.value}): {outcome.detail}"


def issue_markdown(case: Case, outcome: Outcome, snippet: str, script: str, device: str, trace: str | None = None) -> str:
    signature = stored_signature(case)
    title = title_of(case, outcome, signature)
    v = versions()
    n_values = sum(t.numel() for sample in case.tensors() for t in sample)
    specs = infer_specs(case.graph)
    program = ", ".join(f"{n.op} -> {specs[len(case.graph.inputs) + k].dtype}" for k, n in enumerate(case.graph.nodes))
    lines = [
        f"# {title}",
        "",
        "## Bug",
        "",
        f"Compiled with `{case.target}`, this {len(case.graph.nodes)}-op program ({program}) on {n_values} input value{'s' * (n_values != 1)} "
        + _what_happens(outcome),
        "Errors are in ULPs of the output dtype; the reference runs every op in float64 and rounds only at explicit casts.",
        "",
        "## To reproduce",
        "",
        "```python",
        snippet.rstrip(),
        "```",
        "",
        "## Errors against float64",
        "",
        "```",
        _outcome_tables(outcome),
        "```",
        "",
        "<details><summary>Standalone script that asserts it (prints the table above, fails while the compiled result is less accurate)</summary>",
        "",
        "```python",
        script.rstrip(),
        "```",
        "",
        "</details>",
    ]
    if trace:
        lines += ["", "## Final execution trace", "", "```python", trace.rstrip(), "```"]
    lines += [
        "",
        "## Environment",
        "",
        f"- torch {v['torch']}, thunder {v['thunder']}, python {v['python']}",
        f"- device: {device_name(device)}",
    ]
    notes = case.extra.get("minimize")
    if isinstance(notes, dict) and isinstance(notes.get("from"), dict):
        lines += ["", f"Found by numfuzz and minimised from {notes['from'].get('nodes')} ops and {notes['from'].get('scalars')} input values "
                  f"in {notes.get('compiles')} compiles (signature `{signature.text() if signature else '?'}`)."]  # fmt: skip
    return "\n".join(lines) + "\n"


@dataclass
class ReproFiles:
    script: Path
    issue: Path
    outcome: Outcome


def write_repro(
    case: Case, target: Target, device: str, out_dir: Path, imports: Sequence[str] = (), outcome: Outcome | None = None
) -> ReproFiles:
    """Run the case once (one compile, for its errors and trace) and write repro_<id>.py and issue_<id>.md.

    A given `outcome` (from an isolated run of a case that kills its process) skips the run.
    """
    from numfuzz.cases import run_case

    if outcome is None:
        outcome = run_case(case, target, device, want_trace=True)
    signature = stored_signature(case)
    script = script_source(case, target, device, imports, title_of(case, outcome, signature))
    stem = case.content_hash()[:12]
    out_dir = Path(out_dir)
    script_path, issue_path = out_dir / f"repro_{stem}.py", out_dir / f"issue_{stem}.md"
    write_atomic(script_path, script)
    snippet = snippet_source(case, target, device, imports)
    write_atomic(issue_path, issue_markdown(case, outcome, snippet, script, device, outcome.trace))
    return ReproFiles(script_path, issue_path, outcome)
