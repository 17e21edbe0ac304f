"""The issue text: a short snippet in the style of a hand-written report, the error table, versions and trace."""

from __future__ import annotations

from typing import Sequence

from numfuzz.corpus.case import Case, stored_signature
from numfuzz.corpus.known import KnownIssue
from numfuzz.environment import device_name, vector_isa, versions
from numfuzz.judge.bounds import Bounds
from numfuzz.judge.cause import BACKWARD, OUTPUT_METADATA, cause_named
from numfuzz.judge.compiled import output_label
from numfuzz.judge.execute import Outcome, flagged_output
from numfuzz.judge.nonfinite_class import changes_text
from numfuzz.judge.rounding_error_text import describe
from numfuzz.judge.signature import Signature, severity, symptom_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.layout import LAYOUT_SOURCE
from numfuzz.program.lowering import lower
from numfuzz.program.ops import infer_specs
from numfuzz.program.scalars import values as scalar_values
from numfuzz.repro.literals import tensor_literal
from numfuzz.repro.script import compile_call, error_table, user_code_lines
from numfuzz.targets import Target
from numfuzz.targets.compile_modes import configured


def snippet_source(case: Case, target: Target, device: str, imports: Sequence[str] = (), layouts: bool = False) -> str:
    """A short snippet for the issue text, in the style of a hand-written report; with `layouts`, it also prints each
    output's strides, contiguity and the input it is a view of, eager's beside the compiled program's (a metadata finding)."""
    target = configured(target, case.run)
    compile_imports, compile_expr = compile_call(target)
    same = lower(case.graph, reference=True) == lower(case.graph)
    reference = (
        "" if same else "\n\n# float64 reference: every op in float64; an explicit cast still rounds.\n" + lower(case.graph, "fn_fp64", reference=True).rstrip()
    )
    ref_name = "fn" if same else "fn_fp64"
    rows = case.tensors()
    names = [f"x{i}" for i in range(len(case.graph.inputs))]
    specs = case.graph.inputs

    def literal(t, spec) -> str:  # an input laid out as a strided view is built as one
        text = tensor_literal(t, device)
        return text if spec.layout is None else f"laid_out({text}, *{tuple(spec.layout.full(len(spec.shape)))!r})"

    if len(rows) == 1:
        inputs = "\n".join(f"{n} = {literal(t, spec)}" for n, t, spec in zip(names, rows[0], specs))
        inputs += f"\nsamples = [({', '.join(names)},)]"
    else:
        inputs = "samples = [\n" + "".join("    (" + ", ".join(literal(t, spec) for t, spec in zip(row, specs)) + ",),\n" for row in rows) + "]"
    if any(spec.layout is not None for spec in specs):
        inputs = "# Strided inputs: dims in memory order, steps, dims of stride 0, storage offset, gaps.\n" + LAYOUT_SOURCE + "\n\n" + inputs
    return f"""import math  # inf and nan literals

import torch
import torch.nn.functional as F
{chr(10).join(compile_imports)}
{user_code_lines(list(imports), fallback_here=False)}

{lower(case.graph).rstrip()}{reference}


{inputs}

compiled = {compile_expr}
scalars = {scalar_values(case.graph)!r}  # fn's Python scalar arguments, after its tensors
for args in samples:
    expected = {ref_name}(*[x.double() for x in args], *scalars)
    for who, f in (("eager", fn), ("compiled", compiled)):
        errors = [(out.double() - ref).abs().max().item() for out, ref in zip(f(*args, *scalars), expected)]
        print(f"{{who:>8}}: greatest absolute difference from float64 per output: {{errors}}")
{LAYOUT_LINES if layouts else ""}{_gradient_lines(case, device, ref_name) if case.run.grad else ""}{_second_size_lines(case, device, ref_name)}"""


# The snippet's layouts: eager's outputs are the contract (strides, contiguity, which input's memory an output shares).
LAYOUT_LINES = """for args in samples[:1]:
    for who, f in (("eager", fn), ("compiled", compiled)):
        outs = f(*args, *scalars)
        views = [next((f"x{i}" for i, x in enumerate(args) if x.untyped_storage().data_ptr() == o.untyped_storage().data_ptr()), None) for o in outs]
        print(f"{who:>8}: strides {[o.stride() for o in outs]}, contiguous {[o.is_contiguous() for o in outs]}, views of inputs {views}")
"""


def _second_size_lines(case: Case, device: str, ref_name: str) -> str:
    """The snippet's second size: the same compiled program on the second size's inputs (no recompile)."""
    if not case.has_second_call:
        return ""
    rows = "".join("    (" + ", ".join(tensor_literal(t, device) for t in row) + ",),\n" for row in case.second_tensors())
    what = "at the second size" if case.second is not None else "with the second scalar values"
    return f"""
# The same compiled program called again, {what}:
second_samples = [
{rows}]
scalars2 = {scalar_values(case.second_graph())!r}
for args in second_samples:
    expected = {ref_name}(*[x.double() for x in args], *scalars2)
    for who, f in (("eager", fn), ("compiled", compiled)):
        errors = [(out.double() - ref).abs().max().item() for out, ref in zip(f(*args, *scalars2), expected)]
        print(f"{{who:>8}} {what}: greatest absolute difference from float64 per output: {{errors}}")
{_gradient_lines(case, device, ref_name, second=True) if case.run.grad else ""}"""


def _gradient_lines(case: Case, device: str, ref_name: str, second: bool = False) -> str:
    """The snippet's backward: the first sample's input gradients, for its stored upstream gradients, against float64's
    (`second`: at the second call, for the first call's upstream gradients tiled to its output shapes)."""
    rows = case.second_grad_tensors() if second else case.grad_tensors()
    upstream = ", ".join(tensor_literal(t, device) for t in (rows or [[]])[0])
    where, args, scalars = ("at the second call", "second_samples", "scalars2") if second else ("", "samples", "scalars")
    return f"""
# The gradients{" " + where if where else ""}, for the upstream gradients numfuzz drew (the first sample's):
upstream = ({upstream},)
for who, f in (("eager", fn), ("compiled", compiled), ("float64", {ref_name})):
    args = [(x.double() if who == "float64" and x.is_floating_point() else x).detach().requires_grad_(x.is_floating_point()) for x in {args}[0]]
    wrt = [x for x in args if x.requires_grad]  # indices get no gradient
    pairs = [(o, g.double() if who == "float64" else g) for o, g in zip(f(*args, *{scalars}), upstream) if o.requires_grad]  # a count has no gradient
    grads = torch.autograd.grad([o for o, _ in pairs], wrt, [g for _, g in pairs], allow_unused=True)
    print(f"{{who:>8}}: input gradients {{[None if g is None else g.double().tolist() for g in grads]}}")
"""


def _culprit_call(case: Case, signature: Signature | None) -> str:
    if signature and signature.ops:
        return ", ".join(f"`{op}`" for op in signature.ops)
    return ", ".join(f"`{op}`" for op in dict.fromkeys(n.op for n in case.graph.nodes)) or "the program"


def compiled_as(case: Case) -> str:
    """The target, with how the case compiles where that is not static with the default options."""
    label = case.run.compile_label(dims=True)
    return f"{case.target} ({label})" if label else case.target


def title_of(case: Case, outcome: Outcome, signature: Signature | None) -> str:
    what = ("the gradient of " if signature and signature.cause == BACKWARD.name else "") + _culprit_call(case, signature)
    what += {"second_size": " at a second size of its dynamic dims", "second_call": " when called again with other scalar values"}.get(outcome.at, "")
    dtype = f" on {signature.dtype}" if signature and signature.dtype else ""
    if outcome.verdict is Verdict.LESS_ACCURATE:
        bits = severity(outcome)
        return f"{compiled_as(case)}: {what}{dtype} is less accurate than eager against float64 ({bits:.1f} bits lost)"
    if outcome.verdict is Verdict.NONFINITE:
        return f"{compiled_as(case)}: {what}{dtype} gives inf/nan where eager and float64 are finite"
    if outcome.verdict is Verdict.NONFINITE_CLASS:
        return f"{compiled_as(case)}: {what}{dtype} loses a NaN or inf that eager and float64 agree on"
    symptom = symptom_of(outcome)
    _, _, exception = symptom.partition(":")
    phrase = _PHRASES.get(outcome.verdict, outcome.verdict.value.replace("_", " "))
    return f"{compiled_as(case)}: {what} {phrase}" + (f" ({exception})" if exception else "")


_PHRASES = {
    Verdict.CRASH_COMPILE: "raises while compiling",
    Verdict.CRASH_RUN: "raises when run again",
    Verdict.MISMATCH: "returns another shape or dtype than eager",
    Verdict.UNCHECKED: "computes a program eager raises on",
    Verdict.METADATA: "returns an output laid out unlike eager's",
    Verdict.NONDETERMINISTIC: "gives different results on the same inputs",
    Verdict.POSITION_DEPENDENT: "gives different results for the same values at two positions",
    Verdict.TIMEOUT: "hangs",
    Verdict.OOM: "runs out of memory",
    Verdict.SEGFAULT: "kills the process (SIGSEGV)",
    Verdict.ABORT: "aborts the process",
    Verdict.EQUAL: "is as accurate as eager here (no finding)",
    Verdict.MORE_ACCURATE: "is more accurate than eager here (no finding)",
    Verdict.WITHIN_ROUNDING: "is less accurate than eager only within its ops' documented rounding here (no finding)",
    Verdict.EAGER_UNSTABLE: "is less accurate than eager, where eager is equally unstable at the op it starts at (no finding)",
    Verdict.SUBGRADIENT: "takes another derivative than eager where its op has none (no finding)",
}


def _outcome_tables(outcome: Outcome, outputs: int) -> str:
    if not outcome.outputs:
        return f"{outcome.verdict.value}: {outcome.detail}"
    return "\n\n".join(
        error_table(output_label(o.index, outputs), o.dtype, o.elements, [
            ("eager", o.eager_max_ulp, o.eager_mean_ulp, o.eager_max_abs, o.eager_max_rel),
            ("compiled", o.target_max_ulp, o.target_mean_ulp, o.target_max_abs, o.target_max_rel),
        ]) + f"\n{'':>10}worse on {o.worse} elements, better on {o.better}: {o.verdict}"
        + (f"\n{'':>10}{changes_text(o.class_changes)}" if o.class_lost else "")
        for o in outcome.outputs
        if o.index < outputs or o.elements  # not an integer input's empty gradient
    )  # fmt: skip


def _what_happens(outcome: Outcome) -> str:
    if not outcome.verdict.is_finding:  # a rule's evidence says why (eager equally unstable, say)
        return f"is no finding here: {outcome.verdict.value}" + (f", by the rule {outcome.rule}: {outcome.detail}." if outcome.rule else ".")
    if outcome.verdict is Verdict.NONFINITE_CLASS:
        return f"does not give the NaN or inf that eager PyTorch and the float64 reference agree on ({outcome.verdict.value}): {outcome.detail}."
    if flagged_output(outcome) is not None:
        return f"is further from the float64 reference than eager PyTorch is ({outcome.verdict.value})."
    return f"fails ({outcome.verdict.value}): {outcome.detail}"


def _cause_lines(outcome: Outcome, bounds: Bounds) -> list[str]:
    """Where the difference starts and the cause numfuzz tested, with its evidence; the rounding error under `bounds`."""
    facts = outcome.analysis
    if outcome.verdict is Verdict.METADATA:
        return ["", f"**What differs:** {outcome.detail}. **Likely cause:** {OUTPUT_METADATA.phrase}."]
    if facts is None or not facts.cause or facts.ill_conditioned:
        return []
    c = facts.culprit
    where = f"`{c.op}` ({c.dtype}, node t{c.node})" if c is not None else f"`{facts.op}` ({facts.dtype})"
    cause = cause_named(facts.cause)
    phrase = cause.phrase if cause is not None else facts.cause
    lines = ["", f"**Where it starts:** {where}. **Likely cause:** {phrase}. Evidence numfuzz measured:", ""]
    lines += [f"- {line}" for line in facts.evidence]
    if facts.rounding_error is not None:
        lines += ["", f"**Wrong, not only lower precision?** Rounding error {describe(facts.rounding_error, bounds)}.", "", _METHOD]
    return lines


def _upstream_lines(known: KnownIssue | None) -> list[str]:
    if known is None:
        return []
    links = "".join(f"\n- {link}" for link in known.links)
    return ["", "## Upstream", "", f"{known.title}. Status: {known.status}.{links}"]


_METHOD = (
    "(Rounding error, Higham's backward error: the smallest move of the op's inputs, in ULPs of each input's dtype, whose exact result is the value "
    "seen, to first order with derivatives from float64 autograd, after allowing the value its final rounding; "
    "condition: sum |df/dx_i| |x_i| / |f|. Bounds: the implementations' documented accuracy, as numfuzz's error_bounds.toml states it.)"
)


def issue_markdown(
    case: Case,
    outcome: Outcome,
    snippet: str,
    script: str,
    device: str,
    bounds: Bounds,
    trace: str | None = None,
    known: KnownIssue | None = None,
    newest: Sequence[str] = (),
) -> str:
    """The issue text; `known`: the upstream issue the finding matches, cited under its own heading; `newest`: where it
    was confirmed on the newest versions."""
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
        f"Compiled with `{compiled_as(case)}`, this {len(case.graph.nodes)}-op program ({program}) on {n_values} input value{'s' * (n_values != 1)} "
        + _what_happens(outcome),
        "Errors are in ULPs of the output dtype; the reference runs every op in float64 and rounds only at explicit casts.",
        *_cause_lines(outcome, bounds),
        *_upstream_lines(known),
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
        _outcome_tables(outcome, len(case.graph.outputs)),
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
        f"- device: {device_name(device)}, vector ISA {vector_isa(device)}",
        *(f"- on the newest: {line}" for line in newest),
    ]
    notes = case.extra.get("minimize")
    if isinstance(notes, dict) and isinstance(notes.get("from"), dict):
        lines += ["", f"Found by numfuzz and minimised from {notes['from'].get('nodes')} ops and {notes['from'].get('scalars')} input values "
                  f"in {notes.get('compiles')} compiles (signature `{signature.text() if signature else '?'}`)."]  # fmt: skip
    return "\n".join(lines) + "\n"
