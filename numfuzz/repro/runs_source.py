"""A repro script's runs and its verdict over them: eager, the compiled program and float64, with gradients or without,
at the case's inputs and at its second size or scalar values, each set judged by the same loop (`VERDICT_LOOP`)."""

from __future__ import annotations

from numfuzz.corpus.case import Case
from numfuzz.program.scalars import values as scalar_values
from numfuzz.repro.literals import rows_source
from numfuzz.targets import Target

# The verdict loop over one set of runs: `less_accurate` lists the float outputs the rule flags, `other_than_eager`
# the integer or bool outputs whose values are not eager's.
VERDICT_LOOP = """less_accurate, other_than_eager = [], []
for k in range(len({eager}[0])):
    if not ({eager}[0][k].is_floating_point() or {eager}[0][k].is_complex()):  # an integer or bool output: eager's values are exact
        differ = sum(int((e[k] != g[k]).sum()) for e, g in zip({eager}, {got}))
        print(f"{{label(k)}} ({{{eager}[0][k].dtype}}): {{differ}} elements differ from eager's")
        if differ:
            other_than_eager.append(k)
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


def verdict_assertions(where: str = "") -> str:
    """The script's two assertions after `VERDICT_LOOP`; `where` opens each message (the second call's, say)."""
    lead = where + "the compiled result"
    return (
        f"assert not other_than_eager, f\"{lead} differs from eager's on {{', '.join(label(k) for k in other_than_eager)}}\"\n"
        f"assert not less_accurate, f\"{lead} is less accurate than eager on {{', '.join(label(k) for k in less_accurate)}}\""
    )


def second_size_source(case: Case, target: Target) -> str:
    """The script's second-size check ("" without a second size): the same compiled program run at the
    second size's inputs, without recompiling where the target can tell, and judged by the same rule."""
    if not case.has_second_call:
        return ""
    rows = rows_source(case.second_tensors())
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
{verdict_assertions("at the " + call + ", ")}
differs = metadata_differences(NAMES, as_tuple(eager2[0]), as_tuple(got2[0]), {"None" if case.run.grad else "inputs2[0]"}, STRIDES)
assert not differs, f"at the {call}, the compiled outputs are laid out unlike eager's: {{'; '.join(differs)}}"
"""


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
{rows_source(case.second_grad_tensors() or [])},
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


def grad_runs_source(upstream: str) -> str:
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
