"""`numfuzz.check_model`: is a compiled model further from its float64 reference than eager is, and from which module on?

    result = numfuzz.check_model(model, (input_ids,), "inductor")
    print(result.explain())

The model runs in eager, compiled by the target, and as its float64 reference with its casts
(`numfuzz.model.reference`), on the example inputs and on samples drawn like them (token ids
stay in their range). Each floating output (logits, a loss) is judged by numfuzz's oracle against
the reference, over every sample. Then each submodule, in the order the model calls them, is
judged on its own: compiled by the target alone and fed eager's inputs to it (as numfuzz's
cutting does), against its own float64 reference on those inputs. Compiling a module alone
changes what the compiler fuses across its boundary, so the module table says where the two
part locally; the verdict at the top is the whole compiled model's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils._pytree import tree_flatten

from numfuzz.check import Compiler, as_target
from numfuzz.judge.compiled import flat64
from numfuzz.judge.execute import one_line
from numfuzz.judge.oracle import OutputErrors, compare_output
from numfuzz.judge.refusal import own_code
from numfuzz.judge.verdicts import Verdict
from numfuzz.model.capture import ModuleCall, module_calls
from numfuzz.model.coverage import call_name, coverage
from numfuzz.model.mapping import DTYPE_NAMES
from numfuzz.model.parting import Parting, find_partings
from numfuzz.model.reference import float64_program
from numfuzz.model.region import extract_region
from numfuzz.model.region_check import check_region
from numfuzz.model.result import ModelResult, ModuleVerdict
from numfuzz.model.state import GlobalState, buffers_kept, state_noted
from numfuzz.model.verdict import Judged, crashed, judge_outputs_by_rules, known_issue, output_oracle, region_known, run_target, state_left
from numfuzz.program.values import torch_dtype
from numfuzz.targets import Target


def draw_model_samples(inputs: Sequence[Any], samples: int, seed: int = 0) -> list[list[Any]]:
    """The example inputs, then `samples - 1` drawn like them: floats from a normal of the example's mean and spread,
    integers (token ids) uniform over the example's range, anything else as given."""
    gen = torch.Generator().manual_seed(seed)
    rows = [list(inputs)]
    for _ in range(samples - 1):
        row = []
        for x in inputs:
            if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 1:
                base = x.detach().double().cpu()
                drawn = torch.randn(x.shape, generator=gen, dtype=torch.float64) * base.std() + base.mean()
                row.append(drawn.to(x.dtype).to(x.device))
            elif isinstance(x, torch.Tensor) and not x.is_floating_point() and x.dtype != torch.bool and x.numel():
                low, high = int(x.min()), int(x.max())
                row.append(torch.randint(low, high + 1, x.shape, generator=gen, dtype=x.dtype).to(x.device))
            else:
                row.append(x)
        rows.append(row)
    return rows


def floating_leaves(value: Any) -> list[torch.Tensor]:
    """The floating tensors of a model's output (a tensor, a tuple, a ModelOutput), in order."""
    if hasattr(value, "to_tuple"):  # transformers' ModelOutput
        value = value.to_tuple()
    leaves, _ = tree_flatten(value)
    return [leaf.detach() for leaf in leaves if isinstance(leaf, torch.Tensor) and leaf.is_floating_point()]


def judge_outputs(eager: list[list[torch.Tensor]], target: list[list[torch.Tensor]], reference: list[list[torch.Tensor]]) -> list[OutputErrors]:
    """Each floating output over every sample, by numfuzz's oracle (outputs whose dtype is not a float format it knows are left out)."""
    judged = []
    for k, leaf in enumerate(eager[0]):
        name = DTYPE_NAMES.get(leaf.dtype)
        if name is not None and name not in ("fp64", "i64"):
            judged.append(compare_output(k, name, _flat(reference, k), _flat(eager, k), _flat(target, k)))
    return judged


def _flat(runs: list[list[torch.Tensor]], k: int) -> np.ndarray:
    """Output k over every sample, flat, in float64."""
    return flat64([run[k] for run in runs])


def _run_all(fn: Callable, rows: list[list[Any]], kwargs_rows: list[dict] | None = None, states: list[GlobalState] | None = None) -> list[list[torch.Tensor]]:
    """`fn` on every row, each call on its own copy of the arguments (a module may update a cache it is given), and the
    model's buffers and PyTorch's global modes as they were after (`model.state`); the modes each call left are appended
    to `states` where given."""
    runs = []
    with torch.no_grad(), buffers_kept(fn):
        for i, row in enumerate(rows):
            with state_noted(states):
                out = fn(*copy.deepcopy(row), **copy.deepcopy(kwargs_rows[i] if kwargs_rows else {}))
            runs.append(floating_leaves(out))
    return runs


def _reference_runs(fn: Callable, rows: list[list[Any]], kwargs_rows: list[dict] | None, casts_round: bool) -> tuple[list[list[torch.Tensor]], Any]:
    import torch._dynamo

    reference_fn, capture = float64_program(lambda *a, **k: fn(*a, **k), casts_round)
    try:
        with buffers_kept(fn):
            return _run_all(reference_fn, rows, kwargs_rows), capture
    finally:
        torch._dynamo.reset()


def _judged(target: Target, fn: Callable, rows: list[list[Any]], kwargs_rows: list[dict] | None, device: str) -> Judged:
    """`fn` on every row in eager, compiled by `target`, and as its float64 reference, judged by numfuzz's one verdict
    (`model.verdict`): against the program as written, and, where outputs stay less accurate, against it with its casts as no-ops."""
    eager_states: list[GlobalState] = []
    target_states: list[GlobalState] = []
    eager = _run_all(fn, rows, kwargs_rows, eager_states)
    reference, capture = _reference_runs(fn, rows, kwargs_rows, casts_round=True)
    target.reset()
    try:
        # the module itself, as a user gives it (thunder.jit of the module takes its buffers' reassignment; of a function calling it, not)
        compiled = target.prepare(fn, device)
        each = kwargs_rows or [{} for _ in rows]
        got = run_target(lambda k: _run_all(compiled, [rows[k]], [each[k]], target_states)[0], list(range(len(rows))), own_code(target))
    except Exception as exc:  # prepare raised: the target's failure is the finding, never numfuzz's
        got = crashed(exc, first_call=True, own=own_code(target))
    finally:
        target.reset()
    got = state_left(eager_states, target_states) or got
    if isinstance(got, Judged):
        got.capture = capture
        return got
    if [(t.shape, t.dtype) for t in got[0]] != [(t.shape, t.dtype) for t in eager[0]]:
        return Judged(Verdict.MISMATCH, detail="the compiled outputs' shapes or dtypes differ from eager's", capture=capture)

    def casts_explain(worse: list[int]) -> bool:
        without_casts = _reference_runs(fn, rows, kwargs_rows, casts_round=False)[0]
        return _no_worse_at(worse, eager, got, without_casts)

    judged = judge_outputs_by_rules(judge_outputs(eager, got, reference), None, casts_explain)
    judged.capture = capture
    return judged


def _no_worse_at(indices: list[int], eager: list[list[torch.Tensor]], got: list[list[torch.Tensor]], without_casts: list[list[torch.Tensor]]) -> bool:
    """The target is no less accurate than eager at outputs `indices` against the program with the model's casts as no-ops: it dropped a cast."""
    return all(output_oracle(o) is not Verdict.LESS_ACCURATE for o in judge_outputs(eager, got, without_casts) if o.index in indices)


Wrap = Callable[[Callable], Callable]  # how the model, or a module of it, is called: under autocast, or as it is


class Autocast(torch.nn.Module):
    """A module called under `torch.autocast`: a module still, so a target is given it as a user gives a model."""

    def __init__(self, inner: torch.nn.Module, device_type: str, dtype: torch.dtype):
        super().__init__()
        self.inner = inner
        self.device_type = device_type
        self.dtype = dtype

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        with torch.autocast(self.device_type, dtype=self.dtype):
            return self.inner(*args, **kwargs)


def autocast_mode(dtype: str | None) -> str:
    """A model's mode as a finding's signature names it (`judge.signature.mode_label`): `autocast=bf16` under autocast."""
    return f"autocast={dtype}" if dtype is not None else ""


def autocast_wrap(dtype: str | None, device: str) -> Wrap:
    """Calls of a module (or a function) under `torch.autocast` of `dtype` ("bf16", "fp16"); as they are for None."""
    if dtype is None:
        return lambda fn: fn
    device_type, dtype_of = torch.device(device).type, torch_dtype(dtype)

    def wrap(fn: Callable) -> Callable:
        if isinstance(fn, torch.nn.Module):
            return Autocast(fn, device_type, dtype_of)

        def run(*args: Any, **kwargs: Any) -> Any:
            with torch.autocast(device_type, dtype=dtype_of):
                return fn(*args, **kwargs)

        return run

    return wrap


def _judge_module(target: Target, call: ModuleCall, device: str, wrap: Wrap, mode: str) -> ModuleVerdict:
    judged = _judged(target, wrap(call.module), [list(call.args)], [call.kwargs], device)
    kind = type(call.module).__name__
    known = known_issue(target.name, judged, device, mode)
    return ModuleVerdict(call.path, kind, call.path.count(".") + 1, judged.verdict, judged.outputs, judged.detail, judged.cause, known)


def check_model(
    model: torch.nn.Module,
    inputs: Sequence[Any],
    target: str | Target | Compiler,
    samples: int = 4,
    seed: int = 0,
    device: str = "cpu",
    modules: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
    train: bool = False,
    loss: Callable[[Any], torch.Tensor] | None = None,
    autocast: str | None = None,
    partings: bool = True,
    locate: bool = True,
) -> ModelResult:
    """The whole compiled model judged against its float64 reference on `samples` input samples, then (with `modules`)
    each submodule alone, in call order; `progress(k, of, path)` is told each module as it starts. With `train`, a training
    step instead: the loss (`loss(output)`, default the mean square of the floating outputs) and every parameter's and float input's
    gradient (`numfuzz.model.train`); its modules are not judged alone. With `autocast` ("bf16", "fp16"), the model runs
    under `torch.autocast` everywhere, and its reference follows autocast's casts as the model's own. With `partings`
    (forward only), the ops where the compiled model first computes other bits than eager (`numfuzz.model.parting`). With
    `locate`, for a finding, the op where they part and its line (`numfuzz.model.region_check`)."""
    found = as_target(target)
    model = model.eval()
    rows = draw_model_samples(inputs, samples, seed)
    wrap, mode = autocast_wrap(autocast, device), autocast_mode(autocast)
    if train:
        return _check_step(found, model, rows, loss, device, wrap, mode)
    judged = _judged(found, wrap(model), rows, None, device)
    result = ModelResult(
        found.name, judged.verdict, judged.outputs, [], judged.capture.graphs, _captured_ops(judged.capture), judged.detail, judged.cause,
        known_issue(found.name, judged, device, mode), rules=judged.rules,
    )  # fmt: skip
    result.coverage = coverage(judged.capture.nodes)
    return _add_parts(result, found, model, rows[0], device, wrap, mode, modules, partings, locate, progress)


def judge_parts(
    result: ModelResult, model: torch.nn.Module, inputs: Sequence[Any], target: str | Target | Compiler, device: str = "cpu",
    autocast: str | None = None, partings: bool = True, locate: bool = True,
) -> ModelResult:  # fmt: skip
    """`result`, a forward judged by `check_model(..., modules=False, partings=False)`, with its modules judged alone, its
    partings and the op where they part added, as `check_model` with `modules` would give them: the whole model is not
    compiled and judged again (a sweep judges the parts only where the whole gives cause)."""
    wrap, mode = autocast_wrap(autocast, device), autocast_mode(autocast)
    return _add_parts(result, as_target(target), model.eval(), list(inputs), device, wrap, mode, True, partings, locate, None)


def _add_parts(
    result: ModelResult, found: Target, model: torch.nn.Module, row: list[Any], device: str, wrap: Wrap, mode: str, modules: bool, partings: bool, locate: bool,
    progress: Callable[[int, int, str], None] | None,
) -> ModelResult:  # fmt: skip
    """Each module alone (with `modules`), the partings (with `partings`) and, for a finding (with `locate`), the op where they part, added to `result`."""
    calls = wrap(module_calls)(model, row) if modules else []
    for k, call in enumerate(calls):
        if progress is not None:
            progress(k, len(calls), call.path)
        result.modules.append(_judge_module(found, call, device, wrap, mode))
    if partings:
        result.partings = _partings(found, wrap(model), row, device)
    if locate and result.is_finding and (result.parts_at is not None or result.verdict.is_accuracy):
        _check_region(result, found, model, row, calls, device, wrap, mode)
    return result


def _check_region(
    result: ModelResult, target: Target, model: torch.nn.Module, row: list[Any], calls: list[ModuleCall], device: str, wrap: Wrap, mode: str
) -> None:
    """Inside the module where they part (the whole model where no module alone is worse): the op and its line, and the
    known issue the op explains where the whole model's signature, which names no op, matched none."""
    where = result.parts_at
    call = next(c for c in calls if c.path == where.path) if where is not None else ModuleCall("", model, tuple(row))
    try:
        result.region_check = check_region(target, wrap(call.module), tuple(call.args), call.kwargs, call.path, device)
    except Exception as exc:  # numfuzz's own failure to extract the region: the verdict above stands, said in one line
        result.unextracted = one_line(exc)
        return
    result.known = result.known or region_known(result.region_check, target.name, device, mode)


def _partings(target: Target, fn: Callable, row: list[Any], device: str) -> list[Parting] | str:
    try:
        region = extract_region(fn, tuple(row), {})
        return find_partings(region, target, device) if region is not None else "no captured call maps onto the op table"
    except Exception as exc:  # numfuzz's own failure: said in one line, the verdict above stands
        return f"numfuzz could not judge them: {one_line(exc)}"


def _captured_ops(capture: Any) -> list[str]:
    return [call_name(n) for n in capture.nodes]


def _check_step(target: Target, model: torch.nn.Module, rows: list[list[Any]], loss: Callable | None, device: str, wrap: Wrap, mode: str) -> ModelResult:
    """A training step of `model` judged: the loss, then each parameter's gradient and each float input's, over every row."""
    from numfuzz.model.train import float_inputs, loss_step, reference_step_runs, step_runs, target_step_runs

    named = [(name, p) for name, p in model.named_parameters() if p.is_floating_point() and p.requires_grad]
    params = [p for _, p in named]
    labels = ["loss", *(f"the gradient of {name}" for name, _ in named), *(f"the gradient of input {k}" for k in float_inputs(rows[0]))]
    step = wrap(loss_step(model, loss))
    eager_states: list[GlobalState] = []
    target_states: list[GlobalState] = []
    eager = step_runs(step, params, rows, eager_states)
    reference, capture = reference_step_runs(step, params, rows)
    got = target_step_runs(target, step, params, rows, device, target_states)
    got = state_left(eager_states, target_states) or got
    if isinstance(got, Judged):
        got.capture = capture  # the ops the step calls, for a known issue's op rule
        return ModelResult(
            target.name, got.verdict, [], [], capture.graphs, _captured_ops(capture), got.detail, known=known_issue(target.name, got, device, mode),
            labels=labels, coverage=coverage(capture.nodes),
        )  # fmt: skip

    def casts_explain(worse: list[int]) -> bool:  # against the step with its casts as no-ops: a dropped cast (the loss's logits.float(), say)
        return _no_worse_at(worse, eager, got, reference_step_runs(step, params, rows, casts_round=False)[0])

    judged = judge_outputs_by_rules(judge_outputs(eager, got, reference), 1, casts_explain)  # output 0 is the loss, the rest gradients
    return ModelResult(
        target.name, judged.verdict, judged.outputs, [], capture.graphs, _captured_ops(capture), "", judged.cause, known_issue(target.name, judged, device, mode),
        labels=labels, rules=judged.rules, coverage=coverage(capture.nodes),
    )  # fmt: skip
