"""Known Thunder issues met by campaigns and sweeps, op by op: each entry takes its finding and leaves its neighbours new."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import CPU_29, CPU_214, THUNDER_MAIN

from numfuzz.corpus.known import load_known, match_known
from numfuzz.judge.signature import Signature


@pytest.mark.parametrize(
    "target, signature, versions, entry",
    [
        # a returned view of a cat operand aliases the returned cat: Inductor's, and through Thunder's torchcompile executor
        (
            "thunder:torchcompile",
            Signature("", "metadata", ("cat", "permute"), fingerprint="cat, permute: share memory where eager's do not"),
            THUNDER_MAIN,
            "numfuzz-inductor-cat-operand-view-output-aliases-cat",
        ),
        (
            "inductor",
            Signature("", "metadata", ("cat", "unsqueeze"), fingerprint="cat, unsqueeze: share memory where eager's do not"),
            {**CPU_214, "torch": "2.15.0+cu130"},
            "numfuzz-inductor-cat-operand-view-output-aliases-cat",
        ),
        ("inductor", Signature("", "metadata", ("exp",), fingerprint="exp, sin: share memory where eager's do not"), CPU_29, None),
        (  # the cat-with-an-empty-operand layout keeps its own entry
            "inductor",
            Signature("", "metadata", ("cat",), fingerprint="cat: strides (#) where eager gives (#), so a flat view fails"),
            CPU_29,
            "numfuzz-cat-empty-operand-layout",
        ),
        # any/all with dim=(): a 0-dim result where eager's keeps x's shape
        (
            "thunder:torchcompile",
            Signature("", "mismatch", ("db.any",), fingerprint="db.any: shape () where eager gives (#, #)"),
            THUNDER_MAIN,
            "numfuzz-inductor-any-all-empty-dim-reduces-all",
        ),
        ("thunder:torch", Signature("", "mismatch", ("db.any",), fingerprint="db.any: shape () where eager gives (#, #)"), THUNDER_MAIN, None),
        # the stack family's gradient dropped by Thunder, any executor; Inductor's is eager's
        (
            "thunder:torchcompile",
            Signature("", "less_accurate", ("db.dstack",), "fp32", "backward"),
            THUNDER_MAIN,
            "numfuzz-thunder-stack-family-drops-gradient",
        ),
        ("thunder:torch", Signature("", "less_accurate", ("db.hstack",), "fp32", "backward"), CPU_29, "numfuzz-thunder-stack-family-drops-gradient"),
        ("inductor", Signature("", "less_accurate", ("db.dstack",), "fp32", "backward"), CPU_29, None),
    ],
)
def test_the_thunder_main_campaigns_cat_view_any_empty_dim_and_dstack_gradient_are_known(target, signature, versions, entry):

    found = match_known(load_known(), replace(signature, target=target), versions)
    assert (found.id if found else None) == entry


def test_take_of_a_0dim_index_under_thunders_torchcompile_is_the_torch_issue_until_its_fix():
    """torch.take(x, i) of a 0-d index: torch.compile(fullgraph=True) fails on torch 2.9.1 and 2.11.0 (pytorch PR #186138
    fixed it; 2.15.0 passes), whatever Thunder runs it; Thunder's own torch executor passes, Inductor without fullgraph too."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "pytorch-186138-take-0dim-index-data-dependent"
    main = crash_fingerprint(
        "BackendCompilerFailed: backend='inductor' raised: GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent"
        " expression u0 (unhinted: u0).  (Size-like symbols: none)"
    )
    found = Signature("thunder:torchcompile", "crash_compile:BackendCompilerFailed", ("db.take",), fingerprint=main)
    assert match_known(load_known(), found, THUNDER_MAIN).id == entry
    release = Signature("thunder:torchcompile", "crash_compile:Unsupported", ("db.take",), fingerprint="Unsupported: Backend compiler exception")
    assert match_known(load_known(), release, CPU_29).id == entry
    assert match_known(load_known(), found, {**THUNDER_MAIN, "torch": "2.15.0"}) is None
    assert match_known(load_known(), Signature("thunder:torch", found.symptom, ("db.take",), fingerprint=main), THUNDER_MAIN) is None
    other = match_known(load_known(), Signature("thunder:torchcompile", release.symptom, ("db.gather",), fingerprint=release.fingerprint), CPU_29)
    assert other is None or other.id != entry


def test_thunders_tensor_unfold_running_functional_unfold_is_known_whatever_its_symptom():
    """Thunder's executor runs F.unfold for Tensor.unfold: the campaign's wrong shape, and the crash a 1-d input gives."""
    known = load_known()
    entry = "numfuzz-thunder-tensor-unfold-runs-functional-unfold"
    shape = Signature("thunder:torchcompile", "mismatch", ("db.unfold",), fingerprint="db.unfold: shape (#, #, #) where eager gives (#, #, #, #, #)")
    assert match_known(known, shape, THUNDER_MAIN).id == entry
    assert match_known(known, shape, CPU_29).id == entry
    crash = Signature(
        "thunder:torch",
        "crash_compile:NotImplementedError",
        ("db.unfold",),
        fingerprint="NotImplementedError: Exception encountered when doing automatic registration for unfold, please use manual registration: *",
    )
    assert match_known(known, crash, THUNDER_MAIN).id == entry
    assert match_known(known, Signature("inductor", "mismatch", ("db.unfold",), fingerprint=shape.fingerprint), CPU_214) is None


def test_thunders_repeat_interleave_returning_a_view_of_its_input_is_known():
    """A 0-d input or repeats=1: Thunder's reshape of the expanded input views it; eager's repeat_interleave copies."""
    known = load_known()
    view = Signature("thunder:torchcompile", "metadata", fingerprint="db.repeat_interleave: a view of input x# where eager gives a new tensor")
    assert match_known(known, view, THUNDER_MAIN).id == "numfuzz-thunder-repeat-interleave-output-aliases-input"
    assert match_known(known, view, CPU_29).id == "numfuzz-thunder-repeat-interleave-output-aliases-input"
    other = Signature("thunder:torchcompile", "metadata", fingerprint="db.clone: a view of input x# where eager gives a new tensor")
    assert match_known(known, other, THUNDER_MAIN) is None


def test_the_thunder_main_campaigns_fill_atleast_1d_where_method_and_empty_logsumexp_are_known():
    """Four crashes of the 30-minute Thunder-main campaign: a missing fill_, atleast_1d of a list, the method where's
    argument order, and logsumexp over an empty dim; each on the release and main, none before."""
    from numfuzz.judge.crash import crash_fingerprint

    rows = [
        ("crash_compile:AttributeError", "db.torch_randn_like_and_zero", "AttributeError: Unknown attribute fill_", "numfuzz-thunder-tensor-fill-method"),
        (
            "crash_compile:AttributeError",
            "db.atleast_1d",
            "AttributeError: 'list' object has no attribute 'ndim'",
            "numfuzz-thunder-atleast-1d-sequence-argument",
        ),
        (
            "crash_compile:RuntimeError",
            "db.where",
            "RuntimeError: Expected pred to be a tensor with dtype bool, but found dtype thunder.dtypes.int32",
            "numfuzz-thunder-tensor-where-method-argument-order",
        ),
        (
            "crash_compile:RuntimeError",
            "logsumexp",
            "RuntimeError: Can't reduce over a zero-size dimension when computing a reduction without an identity value.",
            "numfuzz-thunder-logsumexp-empty-dim",
        ),
    ]
    for symptom, op, message, entry in rows:
        signature = Signature("thunder:torchcompile", symptom, (op,), fingerprint=crash_fingerprint(message))
        assert match_known(load_known(), signature, CPU_29).id == entry
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
        assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    fill = match_known(
        load_known(),
        Signature("thunder:torch", "crash_compile:AttributeError", ("db.fill",), fingerprint="AttributeError: Unknown attribute fill_"),
        THUNDER_MAIN,
    )
    assert fill.id == "numfuzz-thunder-tensor-fill-method" and fill.kind == "limitation"
    amax = Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("db.amax",), fingerprint=crash_fingerprint(rows[3][2]))
    assert match_known(load_known(), amax, THUNDER_MAIN) is None  # eager's amax refuses an empty dim too
    log_softmax = Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("log_softmax",), fingerprint=amax.fingerprint)
    assert match_known(load_known(), log_softmax, THUNDER_MAIN).id == "numfuzz-thunder-logsumexp-empty-dim"  # a - logsumexp(a)


def test_a_thunder_norm_input_gradient_less_accurate_in_fp16_is_the_twice_rounded_cotangents():
    """The 10-minute Thunder-main campaign's group_norm gradient (fp16, 763 ULP where eager's is 32): Thunder's
    _normalize gives the input two cotangents rounded to fp16 apart; on the release and main, not before, not a
    forward finding, not fp32, not eval-mode batch_norm (which normalises the fp32 copy)."""
    entry = "numfuzz-thunder-norm-input-grad-rounded-twice"
    found = Signature("thunder:torchcompile", "less_accurate", ("group_norm",), "fp16", "backward")
    assert match_known(load_known(), found, THUNDER_MAIN).id == entry
    assert match_known(load_known(), Signature("thunder:torch", "less_accurate", ("layer_norm",), "bf16", "backward"), CPU_29).id == entry
    assert match_known(load_known(), found, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    for other in (
        Signature("thunder:torchcompile", "less_accurate", ("group_norm",), "fp32", "backward"),
        Signature("thunder:torchcompile", "less_accurate", ("group_norm",), "fp16", "cancellation"),
        Signature("thunder:torchcompile", "less_accurate", ("batch_norm",), "fp16", "backward"),
        Signature("inductor", "less_accurate", ("group_norm",), "fp16", "backward"),
    ):
        matched = match_known(load_known(), other, THUNDER_MAIN)
        assert matched is None or matched.id != entry


def test_thunders_float_method_refusing_memory_format_is_known_on_the_release_and_main():
    """x.float(memory_format=...) of the campaign's float OpInfo: TypeError on the release and main, not before."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "TypeError: TensorProxy.float() got an unexpected keyword argument 'memory_format'"
    signature = Signature("thunder:torchcompile", "crash_compile:TypeError", ("db.float",), fingerprint=crash_fingerprint(message))
    entry = "numfuzz-thunder-tensor-float-memory-format"
    assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
    assert match_known(load_known(), signature, CPU_29).id == entry
    assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    half = Signature("thunder:torchcompile", "crash_compile:TypeError", ("db.half",), fingerprint=crash_fingerprint(message.replace("float", "half")))
    matched = match_known(load_known(), half, THUNDER_MAIN)
    assert matched is None or matched.id != entry


def test_an_unused_differentiable_output_under_thunders_torchcompile_executor_is_the_dropped_zero_gradient():
    """torch.cummax(x, 1)[1] with gradients (the campaign's case): the unused values' zero gradient is dropped by the fusion pass's dce."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-torchcompile-unused-output-zero-grad-dropped"
    for op in ("db.cummax", "db.cummin", "db.median", "db.kthvalue", "db.std_mean", "db.linalg.slogdet"):
        signature = Signature("thunder:torchcompile", "crash_compile:KeyError", (op,), fingerprint=crash_fingerprint("KeyError: 't4'"))
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
        assert match_known(load_known(), signature, CPU_29).id == entry
    cummax = Signature("thunder:torchcompile", "crash_compile:KeyError", ("db.cummax",), fingerprint="KeyError: 't#'")
    for other in (
        Signature("thunder:torch", cummax.symptom, cummax.ops, fingerprint=cummax.fingerprint),  # no fusion pass: it passes
        Signature("thunder:torchcompile", cummax.symptom, ("db.sort",), fingerprint=cummax.fingerprint),  # Thunder's own rule
        Signature("thunder:torchcompile", cummax.symptom, cummax.ops, fingerprint="KeyError: 'type'"),
    ):
        found = match_known(load_known(), other, THUNDER_MAIN)
        assert found is None or found.id != entry
    assert match_known(load_known(), cummax, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None


def test_thunders_atleast_3d_of_a_list_before_a_bmm_is_known_under_autocast_or_not():
    """The Thunder-main campaign's atleast_3d of a list, traced with its input's shape, then a bmm: in a bf16 autocast
    block the error reads autocast_exit, outside it the matmul shape check; on the release and main, none before."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-atleast-2d-3d-sequence-argument-shapes"
    autocast_exit = (
        "InterpreterError: Encountered exception AssertionError: A symbol [Symbol name=autocast_exit] was called while processing a primitive"
        " while tracing <function fn at 0x7fa49054ef20>:"
    )
    shape_check = "RuntimeError: Expected the the last two dimensions of a ((2, 2)) be matrix multipiable with the last two dimensions of b ((1, 1))"
    found = [
        Signature(
            "thunder:torchcompile",
            "crash_compile:InterpreterError",
            ("bmm", "db.atleast_3d"),
            fingerprint=crash_fingerprint(autocast_exit),
            mode="autocast=bf16",
        ),
        Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("bmm", "db.atleast_2d"), fingerprint=crash_fingerprint(shape_check)),
        Signature("thunderfx", "crash_compile:RuntimeError", ("db.atleast_3d", "matmul"), fingerprint=crash_fingerprint(shape_check)),
    ]
    for signature in found:
        assert match_known(load_known(), signature, CPU_29).id == entry
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
        assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    sdpa = Signature(
        "thunder:torchcompile", "crash_compile:InterpreterError", ("sdpa_masked",), fingerprint=crash_fingerprint(autocast_exit), mode="autocast=fp16"
    )
    assert match_known(load_known(), sdpa, THUNDER_MAIN).id == "numfuzz-thunder-autocast-sdpa-float-mask"
    other = match_known(
        load_known(), Signature("thunder:torchcompile", "crash_compile:InterpreterError", ("bmm",), fingerprint=crash_fingerprint(autocast_exit)), THUNDER_MAIN
    )
    assert other is None or other.id != entry  # the autocast_exit message names no op


def test_thunders_weak_float_result_of_an_integer_tensor_meeting_a_matmul_is_known_outside_autocast():
    """The Thunder-main campaign's sigmoid of a bool input, atan2 with a bf16 one, matmul with an fp32 one: the trace's
    weak float32 makes the atan2 bf16 and matmul's dtype check raise; on the release and main, none before; an autocast
    region's same message (bmm kept in fp32, the Thunder-main campaign's seed 1201) is the autocast policy's."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-int-to-float-result-weak-dtype"
    rows = [
        (("atan2", "db.sigmoid", "matmul"), "RuntimeError: Expected a.dtype=thunder.dtypes.bfloat16 and b.dtype=thunder.dtypes.float32 to be the same"),
        (("div", "bmm"), "RuntimeError: Expected a.dtype=thunder.dtypes.float32 and b.dtype=thunder.dtypes.float16 to be the same"),
        (("db.exp", "linear"), "RuntimeError: Expected a.dtype=thunder.dtypes.bfloat16 and w.dtype=thunder.dtypes.float32 to be the same!"),
        (("db.sin", "baddbmm"), "RuntimeError: Expected dtype thunder.dtypes.float32 but found thunder.dtypes.bfloat16!"),
    ]
    for ops, message in rows:
        signature = Signature("thunder:torchcompile", "crash_compile:RuntimeError", ops, fingerprint=crash_fingerprint(message))
        assert match_known(load_known(), signature, CPU_29).id == entry
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
        assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    region = Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("bmm",), fingerprint=crash_fingerprint(rows[1][1]), mode="autocast=bf16")
    assert match_known(load_known(), region, THUNDER_MAIN).id == "numfuzz-thunder-autocast-policy"  # bmm kept in fp32 there
    add = Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("add",), fingerprint=crash_fingerprint(rows[0][1]))
    assert match_known(load_known(), add, THUNDER_MAIN) is None  # no op that checks operand dtypes


def test_thunders_gather_of_a_0dim_operand_is_known_for_the_gather_and_scatter_ops():
    """The Thunder-main campaign's torch.gather of a 0-d input with an index of shape (1,): Thunder's metas require equal
    ranks where ATen counts 0-d as 1-d; on the release and main, for gather, scatter and scatter_add, not for another op."""
    entry = "numfuzz-thunder-gather-scatter-0dim-rank"
    message = "RuntimeError: Expected index (rank=#) to have the same rank as a (rank=#)"
    for op in ("db.gather", "gather", "db.scatter", "db.scatter_add", "scatter_add"):
        signature = Signature("thunder:torchcompile", "crash_compile:RuntimeError", (op,), fingerprint=message)
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
        assert match_known(load_known(), signature, CPU_29).id == entry
    other = match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:RuntimeError", ("db.index_put",), fingerprint=message), THUNDER_MAIN)
    assert other is None or other.id != entry


def test_thunders_label_smoothed_mean_cross_entropy_counting_ignored_targets_is_known():
    """The Thunder-main campaign's cross_entropy_index (ignore_index=1, label_smoothing=0.1, mean): the gradient of an
    ignored row is nonzero where eager's is exactly 0; on the release and main, any executor, none before; Inductor's
    cross_entropy is eager's, and the probability-target cross_entropy is another decomposition."""
    entry = "numfuzz-thunder-cross-entropy-label-smoothing-mean-counts-ignored"
    for target in ("thunder:torchcompile", "thunder:torch", "thunderfx"):
        for op in ("cross_entropy_index", "db.nn.functional.cross_entropy"):
            for cause in ("backward", ""):
                found = Signature(target, "less_accurate", (op,), "fp32", cause)
                assert match_known(load_known(), found, THUNDER_MAIN).id == entry
                assert match_known(load_known(), found, CPU_29).id == entry
                assert match_known(load_known(), found, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    inductor = match_known(load_known(), Signature("inductor", "less_accurate", ("cross_entropy_index",), "fp32", "backward"), CPU_214)
    assert inductor is None or inductor.id != entry
    probabilities = match_known(load_known(), Signature("thunder:torchcompile", "less_accurate", ("cross_entropy",), "fp32", "backward"), THUNDER_MAIN)
    assert probabilities is None or probabilities.id != entry


def test_thunders_einsum_of_operands_as_a_list_is_known_on_the_release_and_main():
    """torch.einsum('ij,kj->ik', [x, x]) of the quick start's einsum OpInfo: ValueError on the release and main, not before."""
    from numfuzz.judge.crash import crash_fingerprint

    message = (
        'ValueError: Element 0 ([<TensorProxy(name="t_0", dtype=thunder.dtypes.int64, shape=(1, 1))>, <TensorProxy(name="t_0", '
        "dtype=thunder.dtypes.int64, shape=(1, 1))>]) had an unexpected type <class 'list'>. Supported types are "
        "<class 'thunder.core.proxies.TensorProxy'>"
    )
    signature = Signature("thunder:torchcompile", "crash_compile:ValueError", ("db.einsum",), fingerprint=crash_fingerprint(message))
    entry = "numfuzz-thunder-einsum-operands-as-a-list"
    assert match_known(load_known(), signature, CPU_29).id == entry
    assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
    assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    other = Signature("thunder:torchcompile", "crash_compile:ValueError", ("db.einsum",), fingerprint=crash_fingerprint("ValueError: bad equation"))
    assert match_known(load_known(), other, THUNDER_MAIN) is None


def test_thunders_low_precision_sdpa_decomposition_is_known_under_every_masked_form():
    """A Thunder-main campaign's bf16 sdpa_masked with gradients (scores of 65792 and 65537 both rounded to 65536, so
    softmax ties two keys that float64 separates): the decomposition's rounding, whichever sdpa form met it."""
    entry = "numfuzz-thunder-sdpa-grad-low-precision"
    for op in ("sdpa", "sdpa_masked", "sdpa_bool_masked", "db.scaled_dot_product_attention"):
        found = Signature("thunder:torchcompile", "less_accurate", (op,), "bf16", "backward")
        assert match_known(load_known(), found, THUNDER_MAIN).id == entry
        assert match_known(load_known(), found, CPU_29).id == entry
    fp32 = match_known(load_known(), Signature("thunder:torchcompile", "less_accurate", ("sdpa_masked",), "fp32", "backward"), THUNDER_MAIN)
    assert fp32 is None or fp32.id != entry


def test_thunders_normalize_gradient_of_a_zero_row_is_known():
    """The Thunder-main campaign's F.normalize(x, eps=1e-4) of an fp16 zero tensor with gradients: NaN where eager's is 1e4."""
    entry = "numfuzz-thunder-normalize-zero-row-grad-nan"
    for target in ("thunder:torchcompile", "thunder:torch", "thunderfx"):
        found = Signature(target, "nonfinite", ("db.nn.functional.normalize",), "fp16", "backward")
        assert match_known(load_known(), found, THUNDER_MAIN).id == entry
        assert match_known(load_known(), found, CPU_29).id == entry
    forward = match_known(load_known(), Signature("thunder:torchcompile", "nonfinite", ("db.nn.functional.normalize",), "fp16", ""), THUNDER_MAIN)
    assert forward is None or forward.id != entry
    inductor = match_known(load_known(), Signature("inductor", "nonfinite", ("db.nn.functional.normalize",), "fp16", "backward"), CPU_214)
    assert inductor is None or inductor.id != entry


def test_narrow_with_a_tensor_start_under_autocast_is_thunders_known_refusal():
    """A Thunder-main campaign's torch.narrow(x, 1, start, 2) with a 0-d tensor start in a bf16 autocast block: the
    refusal reads as the autocast_exit AssertionError; outside a region, and for another op, this entry says nothing."""
    from numfuzz.judge.crash import crash_fingerprint

    message = (
        "InterpreterError: Encountered exception AssertionError: A symbol [Symbol name=autocast_exit] was called while processing a primitive "
        "while tracing <function fn at 0x7f3a405e1120>:"
    )
    entry = "thunder-narrow-tensor-start-in-autocast"
    found = Signature("thunder:torchcompile", "crash_compile:InterpreterError", ("db.narrow",), fingerprint=crash_fingerprint(message), mode="autocast=bf16")
    assert match_known(load_known(), found, THUNDER_MAIN).id == entry
    for other in (
        Signature("thunder:torchcompile", "crash_compile:InterpreterError", ("db.narrow",), fingerprint=crash_fingerprint(message)),
        Signature("thunder:torchcompile", "crash_compile:InterpreterError", ("db.cat",), fingerprint=crash_fingerprint(message), mode="autocast=bf16"),
    ):
        got = match_known(load_known(), other, THUNDER_MAIN)
        assert got is None or got.id != entry


def test_thunders_logsumexp_gradient_nan_for_an_infinite_upstream_gradient_is_known():
    """A Thunder-main campaign's logsumexp then pow(t, -1) of a zero: eager's gradient -inf, Thunder's NaN."""
    entry = "numfuzz-thunder-logsumexp-backward-infinite-cotangent"
    found = Signature("thunder:torchcompile", "nonfinite_class", ("logsumexp",), "fp32", "backward")
    assert match_known(load_known(), found, THUNDER_MAIN).id == entry
    forward = match_known(load_known(), Signature("thunder:torchcompile", "nonfinite_class", ("logsumexp",), "fp32", "unexplained"), THUNDER_MAIN)
    assert forward is None or forward.id != entry


def test_an_activation_built_by_acts_table_and_called_with_nothing_is_thunders_container_subclass_bug():
    """Qwen3-Next's forward on Thunder main: ACT2FN["silu"](x), whose __getitem__ Thunder runs twice (a model cell names no op)."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "TypeError: <function SiLUActivation.forward at 0x7f33c27b91c0>() is missing 1 required positional arguments: input"
    found = Signature("thunder:torchcompile", "crash_compile:TypeError", fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), found, THUNDER_MAIN).id == "numfuzz-thunder-container-subclass-getitem-override"


def test_a_model_output_deleting_its_first_field_is_thunders_container_subclass_bug():
    """UperNet on Thunder main: ModelOutput.__post_init__ calls super().__delitem__, which Thunder sends to ModelOutput's
    own __delitem__, which forbids it; eager reaches OrderedDict's."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "Exception: You cannot use ``__delitem__`` on a BackboneOutput instance."
    found = Signature("thunder:torchcompile", "crash_compile:Exception", fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), found, THUNDER_MAIN).id == "numfuzz-thunder-container-subclass-getitem-override"
    assert match_known(load_known(), replace(found, target="inductor"), CPU_214) is None


def test_thunderfx_s_count_of_differentiable_outputs_is_known_for_thunderfx_only():
    """LED's training step on thunderfx: a number-valued output beside a differentiable one."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "AssertionError: (no message; raised in forward, torch_autograd.py)"
    for target, known in (("thunderfx:torchcompile", "numfuzz-thunderfx-number-output-differentiable-count"), ("inductor", None)):
        signature = Signature(target, "crash_compile:AssertionError", ("",), fingerprint=crash_fingerprint(message))
        found = match_known(load_known(), signature, THUNDER_MAIN)
        assert (found.id if found else None) == known, (target, found)


def test_thunders_torchcompile_glu_is_known_by_its_op_and_in_a_model_by_its_keyerror():
    """A program's glu on the torchcompile executor, whatever it shows (a wrong value, a KeyError); a model's KeyError
    names no op; the cummax KeyError keeps its own entry."""
    from numfuzz.judge.crash import crash_fingerprint

    keyerror = crash_fingerprint("KeyError: 't648'")
    for target in ("thunder:torchcompile", "thunderfx:torchcompile"):
        wrong = Signature(target, "less_accurate", ("db.nn.functional.glu",), "fp32")
        assert match_known(load_known(), wrong, THUNDER_MAIN).id == "numfuzz-thunder-torchcompile-glu-nested-names"
        model = Signature(target, "crash_compile:KeyError", (), fingerprint=keyerror)
        assert match_known(load_known(), model, THUNDER_MAIN).id == "numfuzz-thunder-torchcompile-glu-nested-names-in-a-model"
    cummax = Signature("thunder:torchcompile", "crash_compile:KeyError", ("db.cummax",), fingerprint=keyerror)
    assert match_known(load_known(), cummax, THUNDER_MAIN).id == "numfuzz-thunder-torchcompile-unused-output-zero-grad-dropped"
    assert match_known(load_known(), Signature("thunder:torch", "less_accurate", ("db.nn.functional.glu",), "fp32"), THUNDER_MAIN) is None


def test_an_unminimised_crash_is_known_by_an_op_of_its_program():
    """The seed-1202 campaign's ZeroDivisionError, not yet minimised (no op named): matmul of an empty batch is among its
    program's ops, so the matmul entry claims it; the same message from a program without matmul stays new."""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.program.ir import Graph, Node, TensorSpec

    crash = Signature("thunder:torchcompile", "crash_compile:ZeroDivisionError", (), fingerprint="ZeroDivisionError: integer modulo by zero")
    inputs = (TensorSpec((0, 2, 5, 5), "bf16"), TensorSpec((5, 4), "bf16"))
    with_matmul = Graph(inputs, (Node.make("log2", [0]), Node.make("matmul", [0, 1])), (2, 3))
    without = Graph(inputs, (Node.make("log2", [0]), Node.make("exp", [1])), (2, 3))
    assert GroupKey.of(crash, with_matmul, None, load_known(), THUNDER_MAIN).known.id == "numfuzz-thunder-matmul-empty-batch-reshape"
    assert GroupKey.of(crash, without, None, load_known(), THUNDER_MAIN).known is None


def test_thunders_index_put_values_without_a_gradient_is_known_at_its_backward_only():
    """index_put's values get no gradient under Thunder (seed 1204: x[idx] + x[idx] put back into x, the gradient of x 0
    where eager's is 2). Its forward, and Inductor's backward, are another matter."""
    known = load_known()
    for target in ("thunder:torchcompile", "thunder:torch", "thunderfx"):
        for versions in (THUNDER_MAIN, CPU_29):
            found = Signature(target, "less_accurate", ("index_put_self",), "fp16", "backward")
            assert match_known(known, found, versions).id == "numfuzz-thunder-index-put-values-get-no-gradient"
    assert match_known(known, Signature("thunder:torchcompile", "less_accurate", ("index_put_self",), "fp16", "rounding"), THUNDER_MAIN) is None
    assert match_known(known, Signature("inductor", "less_accurate", ("index_put_self",), "fp16", "backward"), CPU_214) is None
