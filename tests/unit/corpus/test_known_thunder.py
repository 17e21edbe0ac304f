"""Known Thunder issues: every committed Thunder finding is known on the release and on main, under every message it shows."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import CPU_29, CPU_214, THUNDER_MAIN

from numfuzz.corpus.known import load_known, match_known
from numfuzz.judge.signature import Signature


def _committed_thunder_findings(tmp_path, provenance: dict) -> list:
    """The committed Thunder findings, as found with `provenance`, grouped as `numfuzz corpus` groups them."""
    import json

    from helpers import FINDINGS

    from numfuzz.corpus.grouping import group_corpus

    tmp_path.mkdir()
    for path in FINDINGS.glob("*.json"):
        data = json.loads(path.read_text())
        if str(data.get("run", {}).get("target", data.get("target", ""))).startswith("thunder"):
            (tmp_path / path.name).write_text(json.dumps({**data, "provenance": {**data.get("provenance", {}), **provenance}}))
    groups, problems = group_corpus(tmp_path)
    assert not problems
    return groups


def test_every_committed_thunder_finding_is_known_on_the_release_and_on_thunder_main(tmp_path):
    """Each committed Thunder finding's repro still fails on Thunder main: the entry found on 0.2.6 still claims it there."""
    release = _committed_thunder_findings(tmp_path / "release", CPU_29)
    main = _committed_thunder_findings(tmp_path / "main", THUNDER_MAIN)
    assert len(release) >= 14 and [g.title for g in release if g.known is None] == []
    assert [g.title for g in main if g.known is None] == []
    by_case = {g.smallest.name: g.known.id for g in release}
    assert {g.smallest.name: g.known.id for g in main} == by_case
    assert by_case["thunder-0dim-intermediate-grad-unreduced.json"] == "numfuzz-thunder-0dim-intermediate-grad-unreduced"


@pytest.mark.parametrize(
    "symptom, op, message, entry",
    [
        ("crash_compile:TypeError", "round", "TypeError: round() got an unexpected keyword argument 'decimals'", "numfuzz-thunder-round-decimals"),
        ("crash_compile:RuntimeError", "hardtanh", "RuntimeError: max_val 0.5 must be larger than min_val 0.5", "numfuzz-thunder-hardtanh-equal-bounds"),
        (
            "crash_compile:TypeError",
            "nan_to_num",
            "TypeError: nan_to_num() got some positional-only arguments passed as keyword arguments: 'nan'",
            "numfuzz-thunder-nan-to-num-keywords",
        ),
        (
            "crash_compile:RuntimeError",
            "trunc",
            "RuntimeError: Failed to find a gradient transform for bound symbol t3 = prims.trunc(t2)",
            "thunder-0.2.6-no-gradient-transform",
        ),
        (
            "crash_compile:Unsupported",
            "kl_div",
            "Unsupported: Unexpected type in sourceless builder optree.registry.DictMetaData",
            "numfuzz-dynamo-optree-empty-dict",
        ),
        ("crash_compile:AttributeError", "db.masked.amax", "AttributeError: Unknown attribute layout", "numfuzz-thunder-masked-reductions-layout"),
        ("crash_compile:AttributeError", "db.masked.var", "AttributeError: is_floating_point", "numfuzz-thunder-masked-reductions-layout"),
        ("crash_compile:IndexError", "db.index_select", "IndexError: tuple index out of range", "numfuzz-thunder-index-select-0dim-input"),
        (
            "crash_compile:RuntimeError",
            "db.polygamma.polygamma_n_2",
            "RuntimeError: polygamma(n, a) expects the first argument to be an integer.",
            "numfuzz-thunder-polygamma-method-argument-order",
        ),
        ("crash_compile:Unsupported", "db.std.unbiased", "Unsupported: TypeError when making fake tensor call", "numfuzz-thunder-var-std-unbiased-overloads"),
        # seed 1205: std(x, True) reduced over dim 1 by Thunder, then addcmul with x cannot broadcast the (3,) result
        ("crash_compile:RuntimeError", "db.std.unbiased", "RuntimeError: Attempting to broadcast a dimension of length 2!", "numfuzz-thunder-var-std-unbiased-overloads"),
        (
            "crash_compile:Unsupported",
            "db.nn.functional.nll_loss",
            "Unsupported: TypeError when making fake tensor call",
            "numfuzz-thunder-nll-loss-default-ignore-index",
        ),
        (
            "crash_compile:TypeError",
            "db.nn.functional.nll_loss",
            "TypeError: nll_loss_nd(): argument 'ignore_index' (position #) must be int, not NoneType",
            "numfuzz-thunder-nll-loss-default-ignore-index",
        ),
        (
            "crash_compile:IndexError",
            "db.var_mean.unbiased",
            "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got True)",
            "numfuzz-thunder-var-std-unbiased-overloads",
        ),
        (
            "crash_compile:TypeError",
            "db.var.unbiased",
            "TypeError: var() received an invalid combination of arguments - got (Tensor, bool, correction=int, keepdim=bool), but expected one of:",
            "numfuzz-thunder-var-std-unbiased-overloads",
        ),
        (
            "crash_compile:TypeError",
            "db.var_mean",
            "TypeError: var_mean() got an unexpected keyword argument 'unbiased'",
            "numfuzz-thunder-var-std-unbiased-keyword",
        ),
        ("crash_compile:TypeError", "db.__rmod__", "TypeError: 'NoneType' object is not callable", "numfuzz-thunder-tensor-mod-operator"),
        ("crash_compile:TypeError", "index_put_self_computed", "TypeError: 'NoneType' object is not callable", "numfuzz-thunder-tensor-mod-operator"),
        ("crash_compile:AttributeError", "db.H", "AttributeError: Unknown attribute H", "numfuzz-thunder-tensor-h-mh-attributes"),
        ("crash_compile:AttributeError", "db.mH", "AttributeError: Unknown attribute mH", "numfuzz-thunder-tensor-h-mh-attributes"),
        (
            "crash_compile:RuntimeError",
            "db.nn.functional.avg_pool3d",
            "RuntimeError: Expected dtype thunder.dtypes.int64 but found thunder.dtypes.float32_!",
            "thunder-avg-pool-integer-input",
        ),
        (
            "crash_compile:RuntimeError",
            "db.nn.functional.local_response_norm",
            "RuntimeError: Expected dtype thunder.dtypes.int64 but found thunder.dtypes.float32_!",
            "thunder-avg-pool-integer-input",
        ),
        ("crash_compile:AttributeError", "db.__rdiv__", "AttributeError: Unknown attribute __rdiv__", "numfuzz-thunder-tensor-rdiv-method"),
        (
            "crash_compile:InterpreterError",
            "sdpa_masked",
            "InterpreterError: Encountered exception AssertionError: A symbol [Symbol name=autocast_exit] was called while processing a primitive"
            " while tracing <function fn at 0x7f6cefc48e00>:",
            "numfuzz-thunder-autocast-sdpa-float-mask",
        ),
        (
            "crash_run:AssertionError",
            "linear",
            "AssertionError: expected tensor with (4, 8), cpu, torch.float64, requires_grad=False, got (4, 8), cpu, torch.float32, False",
            "numfuzz-thunder-submodule-buffer-dtype-reassigned",
        ),
        ("crash_compile:IndexError", "logsumexp", "IndexError: tuple index out of range", "numfuzz-thunder-squeeze-0dim-explicit-dim"),
        ("crash_compile:IndexError", "db.squeeze", "IndexError: tuple index out of range", "numfuzz-thunder-squeeze-0dim-explicit-dim"),
        (
            "crash_compile:ValueError",
            "db.nn.functional.adaptive_avg_pool2d",
            "ValueError: Element 0 (None) had an unexpected type <class 'NoneType'>. Supported types are (<class 'int'>,"
            " <class 'thunder.core.proxies.IntegerProxy'>)",
            "numfuzz-thunder-adaptive-avg-pool2d-none-output-size",
        ),
    ],
)
def test_a_crash_thunder_main_still_has_is_known_there(symptom, op, message, entry):
    from numfuzz.judge.crash import crash_fingerprint

    signature = Signature("thunder:torchcompile", symptom, (op,), fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), signature, CPU_29).id == entry
    assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
    assert match_known(load_known(), signature, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None  # before the release it was found on


@pytest.mark.parametrize(
    "target, signature",
    [
        ("thunder:torchcompile", Signature("", "nonfinite", ("mish",), "bf16", "backward")),
        ("thunder:torch", Signature("", "nonfinite", ("gelu",), "fp16", "backward")),
        ("thunder:torchcompile", Signature("", "nonfinite", ("sigmoid",), "fp32", "backward")),
        ("thunder:torchcompile", Signature("", "nonfinite", ("pow",), "fp32", "backward")),
        ("thunder:torchcompile", Signature("", "nonfinite", ("sdpa",), "bf16", "nonfinite_intermediate")),
    ],
)
def test_a_nan_gradient_thunder_main_still_has_is_known_there(target, signature):

    assert match_known(load_known(), replace(signature, target=target), THUNDER_MAIN) is not None


def test_the_0dim_intermediates_backward_crash_is_known_whatever_thunder_or_dynamo_raises():
    """sin(x.sum()) * x with gradients (the committed case): Thunder's expand, Dynamo's fake-tensor call (its message
    moved between torch versions) and an auto-registered vjp are one bug, known by its mechanism, through either front end."""
    from helpers import FINDINGS

    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.corpus.store import load_case
    from numfuzz.judge.crash import crash_fingerprint

    case = load_case(FINDINGS / "thunder-0dim-intermediate-grad-unreduced.json")
    details = [
        "TorchRuntimeError: Dynamo failed to run FX node with fake tensors: call_method expand(*(FakeTensor(..., size=(1, 1)), [1]), **{}):"
        " got RuntimeError('expand: the requested shape has too few dimensions!')",
        "TorchRuntimeError: RuntimeError when making fake tensor call",
        "NotImplementedError: Exception encountered when doing automatic registration for binary_cross_entropy_with_logits",
    ]
    for detail in details:
        symptom = f"crash_compile:{detail.partition(':')[0]}"
        for target in ("thunder:torchcompile", "thunderfx:torchcompile"):
            crash = Signature(target, symptom, fingerprint=crash_fingerprint(detail))
            for versions in (CPU_29, THUNDER_MAIN):
                key = GroupKey.of(crash, case.graph, None, load_known(), versions, case.run)
                assert key.known is not None and key.known.id == "numfuzz-thunder-0dim-intermediate-grad-unreduced", (detail, target)
            # without gradients, or on Inductor, it is not this bug
            assert GroupKey.of(crash, case.graph, None, load_known(), CPU_29, case.run.with_changes(grad=False)).known is None
        inductor = Signature("inductor", symptom, fingerprint=crash_fingerprint(detail))
        assert GroupKey.of(inductor, case.graph, None, load_known(), CPU_29, case.run.with_changes(target="inductor")).known is None


def test_a_crash_of_thunders_torchcompile_executor_is_the_same_crash_through_thunderfx():
    from numfuzz.judge.crash import crash_fingerprint

    optree = crash_fingerprint("Unsupported: Unexpected type in sourceless builder optree.registry.DictMetaData")
    for target in ("thunder:torchcompile", "thunderfx:torchcompile"):
        crash = Signature(target, "crash_compile:Unsupported", ("xlogy",), fingerprint=optree)
        assert match_known(load_known(), crash, THUNDER_MAIN).id == "numfuzz-dynamo-optree-empty-dict"
    # no torchcompile executor, no Dynamo in the backward: not this crash
    assert match_known(load_known(), Signature("thunder:torch", "crash_compile:Unsupported", ("xlogy",), fingerprint=optree), CPU_29) is None


def test_a_thunder_range_claims_the_release_and_main_it_was_measured_on_and_no_later_release():
    """index_add(alpha=) raises on thunder 0.2.6 and on Thunder main (0.2.7.dev0, a pre-release), as measured; a later release is new again."""
    known = load_known()
    for message in ("TypeError: index_add() got an unexpected keyword argument 'alpha'", "TypeError: index_add_() got an unexpected keyword argument 'alpha'"):
        crash = Signature("thunder:torchcompile", "crash_compile:TypeError", ("index_add",), fingerprint=message)
        assert match_known(known, crash, CPU_29).id == "numfuzz-thunder-index-add-alpha"
        assert match_known(known, crash, {"torch": "2.11.0+cu130", "device": "cpu", "thunder": "0.2.7.dev0"}).id == "numfuzz-thunder-index-add-alpha"
        assert match_known(known, crash, {**CPU_29, "thunder": "0.2.7"}) is None
    other = Signature(
        "thunder:torch", "crash_compile:TypeError", ("index_add",), fingerprint="TypeError: index_add() got an unexpected keyword argument 'beta'"
    )
    assert match_known(known, other, CPU_29) is None


def test_the_thunder_main_campaigns_addcmul_gradient_logical_xor_and_any_are_known():
    """Thunder main's 20-minute campaign: the NaN gradient of addcmul (Thunder's own autodiff, any executor), logical_xor
    of a uint8 tensor and an int64 0-dim 256 (Inductor's lowering, through the torchcompile executor) and any of uint8
    returning bool (pytorch#198081, Inductor's too)."""
    known = load_known()
    torch_215 = {**CPU_214, "torch": "2.15.0+cu130"}
    for target in ("thunder:torchcompile", "thunder:torch", "thunderfx"):
        for op in ("addcmul", "db.addcmul"):
            grad = Signature(target, "nonfinite", (op,), "fp32", "backward")
            assert match_known(known, grad, THUNDER_MAIN).id == "numfuzz-thunder-addcmul-grad-scales-upstream-gradient"
            assert match_known(known, grad, CPU_29).id == "numfuzz-thunder-addcmul-grad-scales-upstream-gradient"
    assert match_known(known, Signature("inductor", "nonfinite", ("addcmul",), "fp32", "backward"), torch_215) is None  # Inductor is right
    xor = "db.logical_xor: values differ from eager's at # of # elements (by up to #)"
    for target, versions in (("thunder:torchcompile", THUNDER_MAIN), ("inductor", torch_215), ("inductor", CPU_29)):
        found = Signature(target, "exact_mismatch", ("db.logical_xor",), fingerprint=xor)
        assert match_known(known, found, versions).id == "numfuzz-inductor-logical-ops-0dim-operand-not-cast"
        any_u8 = Signature(target, "mismatch", ("db.any",), fingerprint="db.any: bool where eager gives u#")
        assert match_known(known, any_u8, versions).id == "pytorch-198081-any-uint8-returns-bool"
    # Thunder's own torch executor agrees with eager on both: a mismatch there is another bug
    assert match_known(known, Signature("thunder:torch", "exact_mismatch", ("db.logical_xor",), fingerprint=xor), THUNDER_MAIN) is None
    other_shape = Signature("inductor", "mismatch", ("db.any",), fingerprint="db.any: shape (#) where eager gives (#, #)")
    assert match_known(known, other_shape, torch_215) is None


def test_thunders_relu_dropping_a_nan_under_grad_is_known_there_only():
    known = load_known()
    found = Signature("thunder:torchcompile", "nonfinite_class", ("relu",), "fp16", "nonfinite_dropped")
    assert match_known(known, found, THUNDER_MAIN).id == "numfuzz-thunder-relu-nan-dropped-with-grad"
    assert match_known(known, Signature("inductor", "nonfinite_class", ("relu",), "fp16", "nonfinite_dropped"), CPU_214) is None


def test_a_models_crash_under_autocast_is_the_autocast_policy_and_off_autocast_not(monkeypatch):
    """A model cell's signature names its autocast as a campaign's does, so the policy's dtype-check message, which a
    rule keeps to autocast regions, is known for a model under autocast and not for one without."""
    import numfuzz.environment
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.model.check import autocast_mode
    from numfuzz.model.verdict import Judged, known_issue

    monkeypatch.setattr(numfuzz.environment, "provenance", lambda device: THUNDER_MAIN)
    crash = Judged(Verdict.CRASH_COMPILE, detail="RuntimeError: Expected a.dtype=thunder.dtypes.bfloat16 and b.dtype=thunder.dtypes.float32 to be the same")
    assert known_issue("thunder:torchcompile", crash, "cpu", autocast_mode("bf16")) == "numfuzz-thunder-autocast-policy"
    assert known_issue("thunder:torchcompile", crash, "cpu", autocast_mode(None)) == ""


def test_a_models_per_layer_config_view_failing_under_thunder_is_the_sequence_subclass_bug():
    """T5Gemma's forward and training step on Thunder main: transformers' per-layer config view, a Sequence subclass, is
    iterated by Thunder before its __init__ sets it; the message names the model's wrapper, which the rule leaves open."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-sequence-subclass-iterated-natively"
    for wrapper in ("ZooModel(", "LossStep("):
        message = f"InterpreterError: Encountered exception AttributeError: '_PerLayerConfigView' object has no attribute '_config' while tracing {wrapper}"
        crash = Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=crash_fingerprint(message))
        assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
        assert match_known(load_known(), crash, CPU_29).id == entry
    other = "InterpreterError: Encountered exception AttributeError: 'Block' object has no attribute 'w' while tracing ZooModel("
    assert (
        match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=crash_fingerprint(other)), THUNDER_MAIN)
        is None
    )


def test_a_models_crash_is_known_by_the_ops_the_model_calls(monkeypatch):
    """CvT's forward on thunder:torchcompile: torch.einsum(equation, [q, k]) in its attention raises the einsum entry's
    message, and a model's crash names no op; the ops its capture calls stand in for them. A model without einsum is not it."""
    import numfuzz.environment
    import torch
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.model.verdict import Judged, known_issue

    class Capture:
        def __init__(self, fn):
            self.nodes = list(torch.fx.symbolic_trace(fn).graph.nodes)

    monkeypatch.setattr(numfuzz.environment, "provenance", lambda device: THUNDER_MAIN)
    said = "ValueError: Element 0 ([<TensorProxy(name=\"t289\", dtype=thunder.dtypes.bfloat16, shape=(1, 1, 64, 8))>]) had an unexpected type <class 'list'>. Supported types are <class 'thunder.core.proxies.TensorProxy'>"
    attention = Capture(lambda q, k: torch.einsum("bhlk,bhtk->bhlt", [q, k]) * 0.5)
    plain = Capture(lambda q, k: torch.matmul(q, k) * 0.5)
    assert (
        known_issue("thunder:torchcompile", Judged(Verdict.CRASH_COMPILE, detail=said, capture=attention), "cpu") == "numfuzz-thunder-einsum-operands-as-a-list"
    )
    assert known_issue("thunder:torchcompile", Judged(Verdict.CRASH_COMPILE, detail=said, capture=plain), "cpu") == ""


def test_a_weight_normed_models_star_arguments_from_a_generator_are_thunders_known_failure():
    """HuBERT's forward and training step on Thunder main: torch's parametrizations call self[0](*originals) of a
    generator, and Thunder's interpreter takes star arguments by len(); a len() of a tensor's size is not it."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-star-args-from-an-iterator"
    for what in ("generator", "map"):
        said = f"InterpreterError: Encountered exception TypeError: object of type '{what}' has no len() while tracing ZooModel("
        crash = Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=crash_fingerprint(said))
        assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
        assert match_known(load_known(), crash, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    other = crash_fingerprint("InterpreterError: Encountered exception TypeError: len() of a 0-d tensor while tracing ZooModel(")
    assert match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=other), THUNDER_MAIN) is None


def test_thunder_s_ignored_getattribute_is_known_by_the_attribute_map_alias_it_fails_to_read():
    """Granite-Speech reads config.audio_token_id, an alias PretrainedConfig's __getattribute__ maps; Thunder's jit looks it up
    as object.__getattribute__ does. Another AttributeError is not this."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-getattribute-override-ignored"
    for said in ("AttributeError: audio_token_id", "AttributeError: image_token_id"):
        crash = Signature("thunder:torchcompile", "crash_compile:AttributeError", fingerprint=crash_fingerprint(said))
        assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
        assert match_known(load_known(), crash, {**THUNDER_MAIN, "thunder": "0.2.5"}) is None
    other = crash_fingerprint("AttributeError: 'NoneType' object has no attribute 'shape'")
    found = match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:AttributeError", fingerprint=other), THUNDER_MAIN)
    assert found is None or found.id != entry


def test_thunder_s_keyerror_none_is_the_weakref_of_an_rnn_module():
    """Parakeet-TDT's LSTM decoder: each RNN module takes weakrefs of its flat weights, and Thunder's jit registers
    weakref.ref's __new__ by a module name it lacks. A KeyError of a name is not this."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-weakref-ref-no-module"
    said = crash_fingerprint("InterpreterError: Encountered exception KeyError: None while tracing ZooModel(")
    crash = Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=said)
    assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
    other = crash_fingerprint("InterpreterError: Encountered exception KeyError: 't648' while tracing ZooModel(")
    found = match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:InterpreterError", fingerprint=other), THUNDER_MAIN)
    assert found is None or found.id != entry


def test_thunders_rejected_keyword_aliases_are_known_by_the_alias_and_not_by_any_unexpected_keyword():
    """ImageGPT's layer norm calls torch.mean(x, axis=-1); torch's parser maps axis to dim, Thunder's mean has no axis.
    An unexpected keyword that is no alias torch maps is another failure."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-jit-rejects-numpy-style-keyword-aliases"
    for said in (
        "TypeError: mean() got an unexpected keyword argument 'axis'",
        "TypeError: sum() got an unexpected keyword argument 'keepdims'",
        "TypeError: add() got an unexpected keyword argument 'x2'",
    ):
        crash = Signature("thunder:torchcompile", "crash_compile:TypeError", fingerprint=crash_fingerprint(said))
        assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
        assert match_known(load_known(), replace(crash, target="inductor"), CPU_214) is None
    other = crash_fingerprint("TypeError: mean() got an unexpected keyword argument 'dtype_'")
    assert match_known(load_known(), Signature("thunder:torchcompile", "crash_compile:TypeError", fingerprint=other), THUNDER_MAIN) is None


def test_a_model_left_with_grad_mode_off_by_thunder_is_the_known_cache_hit_bug_and_another_mode_is_not():
    """Kosmos-2.5's training step on thunderfx: after the second call, grad mode is the tail region's entry mode, off.
    The state oracle names the mode; the default dtype left changed is another bug."""
    from numfuzz.judge.crash import crash_fingerprint

    entry = "numfuzz-thunder-grad-mode-after-cache-hit"
    said = "after call 2, the compiled model leaves grad mode off where eager leaves it on"
    for target in ("thunderfx:torchcompile", "thunder:torchcompile"):
        found = Signature(target, "state", fingerprint=crash_fingerprint(said))
        assert match_known(load_known(), found, THUNDER_MAIN).id == entry
    assert match_known(load_known(), Signature("inductor", "state", fingerprint=crash_fingerprint(said)), CPU_214) is None
    other = crash_fingerprint("after call 1, the compiled model leaves the default dtype float64 where eager leaves it float32")
    assert match_known(load_known(), Signature("thunder:torchcompile", "state", fingerprint=other), THUNDER_MAIN) is None
