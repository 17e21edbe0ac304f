"""Known upstream issues: the shipped file parses, rules match as documented, bad files fail in one line."""

from __future__ import annotations

import pytest

from numfuzz.corpus.known import KnownIssuesError, load_known, match_known, parse_known
from numfuzz.judge.signature import Signature

CPU_29 = {"torch": "2.9.1+cu128", "device": "cpu", "thunder": "0.2.6"}
CPU_214 = {"torch": "2.14.1+cu130", "device": "cpu", "thunder": "absent"}


def test_cast_elision_is_known_by_default_and_new_with_the_opt_out_where_it_works():
    known = load_known()
    dropped = Signature("inductor", "less_accurate", ("cast",), "bf16", "cast_dropped")
    assert match_known(known, dropped, CPU_29).id == "inductor-cast-elision"
    assert match_known(known, Signature("thunder:torchcompile", "less_accurate", ("cast",), "fp16", "cast_dropped"), CPU_29).id == "inductor-cast-elision"
    opted_out = Signature("inductor:emulate_precision_casts=1", "less_accurate", ("cast",), "bf16", "cast_dropped")
    assert match_known(known, opted_out, CPU_29).id == "inductor-emulate-precision-casts-cpu"  # the flag did nothing on CPU then
    assert match_known(known, opted_out, CPU_214) is None  # it works there: a dropped cast is new
    assert match_known(known, dropped, {"torch": "2.9.1", "device": "cpu"}).status.startswith("intended by default")


def test_version_and_op_rules():
    known = load_known()
    expm1 = Signature("inductor", "less_accurate", ("expm1",), "fp32", "cancellation")
    assert match_known(known, expm1, CPU_29).id == "inductor-cpu-vectorized-expm1"
    assert match_known(known, expm1, CPU_214) is None  # fixed there
    assert match_known(known, expm1, {**CPU_29, "device": "cuda"}) is None
    assert match_known(known, Signature("inductor", "less_accurate", ("erf",), "fp32", "cancellation"), CPU_214).id == "inductor-cpu-vectorized-erf"
    assert match_known(known, Signature("inductor", "nonfinite", ("softmax",), "fp32", "nonfinite_intermediate"), CPU_214) is None
    assert match_known(known, Signature("thunder:bug_expm1", "less_accurate", ("expm1",), "fp32", "cancellation"), CPU_29) is None


def test_a_mechanism_rule_matches_the_mechanism_whatever_the_culprit_op():
    known = load_known()
    for culprit in ("pow", "softmax", "expm1"):
        signature = Signature("inductor:emulate_precision_casts=1", "nonfinite", (culprit,), "fp32", "nonfinite_intermediate")
        assert match_known(known, signature, CPU_214, "reduction-recompute").id == "numfuzz-reduction-recompute"
    assert match_known(known, Signature("inductor", "nonfinite", ("pow",), "fp32", "nonfinite_intermediate"), CPU_214) is None  # no mechanism


def test_a_symptom_rule_keeps_a_nan_gradient_issue_off_a_rounding_difference():
    known = load_known()
    nan = Signature("thunder:torch", "nonfinite", ("elu",), "fp16", "backward")
    assert match_known(known, nan, CPU_29).id == "numfuzz-thunder-vjp-inf-times-zero"
    assert match_known(known, Signature("thunder:torch", "nonfinite", ("sigmoid",), "fp32", "backward"), CPU_29).id == "lightning-thunder-1892"
    assert match_known(known, Signature("thunder:torch", "less_accurate", ("sigmoid",), "fp32", "backward"), CPU_29) is None


def test_a_user_file_adds_and_replaces_entries(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[[issue]]\nid = "my-softmax"\ntitle = "t"\nstatus = "filed as #1"\ntargets = ["inductor*"]\nops = ["softmax"]\n')
    known = load_known([mine])
    assert match_known(known, Signature("inductor", "nonfinite", ("softmax",), "fp32", "nonfinite_intermediate"), CPU_214).id == "my-softmax"
    assert len(known) == len(load_known()) + 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[issue]\nid=", "not valid TOML"),
        ('[[issue]]\nid = "x"\ntitle = "t"\n', "'status' must be a non-empty string"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nops = "exp"\n', "'ops' must be a list of strings"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\ntorch = "newest"\n', "not a version specifier"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nop = ["exp"]\n', "unknown key(s) op"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\n[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\n', "ids repeat"),
        ("[other]\nx = 1\n", "expected only [[issue]] tables"),
        (
            '[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nops = ["exp", "expm"]\n',
            "issue 1 (x): 'ops' names 'expm', which is no op of the table (did you mean 'exp",
        ),
        (
            '[[issue]]\nid = "y"\ntitle = "t"\nstatus = "s"\nupstream_ops = ["conv3d"]\n',
            "issue 1 (y): 'upstream_ops' names 'conv3d', which is no op of the table",
        ),
    ],
)
def test_a_malformed_file_is_one_line(text, message):
    with pytest.raises(KnownIssuesError) as caught:
        parse_known(text, "bad.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value) and str(caught.value).startswith("bad.toml")


def test_an_upstream_op_rule_matches_a_backward_downstream_of_the_op_through_the_group_key():
    """mse_loss(celu(x), y)'s gradient under Thunder's torchcompile: the fused backward recomputes celu through expm1."""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.judge.facts import Analysis, Culprit
    from numfuzz.program.ir import Graph, Node, TensorSpec

    graph = Graph((TensorSpec((8,), "fp32"), TensorSpec((8,), "fp32")), (Node.make("celu", [0]), Node.make("mse_loss", [2, 1])), (3,))
    backward = Signature("thunder:torchcompile", "less_accurate", ("mse_loss",), "fp32", "backward")
    facts = Analysis(1, "backward", op="mse_loss", dtype="fp32", culprit=Culprit(1, "mse_loss", "fp32", "less_accurate", "cutting the backward"))
    key = GroupKey.of(backward, graph, facts, load_known(), CPU_29)
    assert key.known is not None and key.known.id == "inductor-cpu-vectorized-expm1-recomputed-in-backward"
    assert GroupKey.of(backward, graph, facts, load_known(), CPU_214).known is None  # fixed there
    without = Graph(graph.inputs, (Node.make("tanh", [0]), Node.make("mse_loss", [2, 1])), (3,))
    assert GroupKey.of(backward, without, facts, load_known(), CPU_29).known is None  # no expm1 upstream
    assert match_known(load_known(), backward, CPU_29) is None  # no program at hand: the rule cannot claim it


THUNDER_MAIN = {"torch": "2.11.0+cu130", "device": "cpu", "thunder": "0.2.7.dev0"}  # a prerelease: specifiers take it


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


def test_dynamos_generic_fake_tensor_message_is_the_unbiased_overloads_only_for_their_ops():
    """`TypeError when making fake tensor call` is Dynamo's message for any refused call: the entry claims it for the unbiased OpInfos only."""
    crash = Signature(
        "thunder:torchcompile", "crash_compile:Unsupported", ("db.var.unbiased",), fingerprint="Unsupported: TypeError when making fake tensor call"
    )
    assert match_known(load_known(), crash, THUNDER_MAIN).id == "numfuzz-thunder-var-std-unbiased-overloads"
    for op in ("db.var", "db.std_mean.unbiased"):  # the correction forms, and std_mean, which Thunder runs as torch's, pass
        other = match_known(load_known(), Signature("thunder:torchcompile", crash.symptom, (op,), fingerprint=crash.fingerprint), THUNDER_MAIN)
        assert other is None or other.id != "numfuzz-thunder-var-std-unbiased-overloads"


def test_a_bare_index_error_is_the_0dim_index_select_only_for_its_ops():
    """`tuple index out of range` is Python's own message: the entry claims it for index_select, index_add and index_copy only."""
    crash = Signature("thunder:torchcompile", "crash_compile:IndexError", ("db.index_select",), fingerprint="IndexError: tuple index out of range")
    assert match_known(load_known(), crash, THUNDER_MAIN).id == "numfuzz-thunder-index-select-0dim-input"
    other = match_known(load_known(), Signature("thunder:torchcompile", crash.symptom, ("db.gather",), fingerprint=crash.fingerprint), THUNDER_MAIN)
    assert other is None or other.id != "numfuzz-thunder-index-select-0dim-input"


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
    from dataclasses import replace

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


@pytest.mark.parametrize("op", ["diagonal_scatter", "select_scatter", "slice_scatter"])
def test_a_scatter_into_an_expanded_input_is_known_where_torch_still_has_it(op):
    """Measured wrong on torch 2.9.1 and 2.11.0 through Inductor (and Thunder's torchcompile executor), right on 2.15.0."""
    known = load_known()
    for target in ("inductor", "thunder:torchcompile", "thunderfx"):
        signature = Signature(target, "less_accurate", (op,), "fp16", "strided_input")
        assert match_known(known, signature, CPU_29).id == "inductor-scatter-into-expanded-input"
        assert match_known(known, signature, THUNDER_MAIN).id == "inductor-scatter-into-expanded-input"  # torch 2.11
        assert match_known(known, signature, {**CPU_214, "torch": "2.15.0+cu130"}) is None  # fixed there: new again if it comes back
    other = match_known(known, Signature("inductor", "less_accurate", ("index_add",), "fp16", "strided_input"), CPU_29)
    assert other is None or other.id != "inductor-scatter-into-expanded-input"  # another op: not this entry


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


def test_meta_strides_of_copysign_and_floor_division_are_known_and_other_ops_new():
    known = load_known()
    for op in ("copysign", "div_floor"):
        found = Signature("inductor", "metadata", fingerprint=f"{op}: strides (#) where eager gives (#)")
        assert match_known(known, found, CPU_214).id == "pytorch-198364-meta-strides"
    assert match_known(known, Signature("inductor", "metadata", fingerprint="xlogy: strides (#) where eager gives (#)"), CPU_214) is None
    assert match_known(known, Signature("inductor", "metadata", fingerprint="copysign: a new tensor where eager gives a view of input x#"), CPU_214) is None


def test_strides_of_fmin_and_fmax_are_the_decomposition_issue_and_minimum_is_new():
    known = load_known()
    for op in ("db.fmin", "db.fmax"):
        found = Signature("inductor", "metadata", fingerprint=f"{op}: strides (#) where eager gives (#), so a flat view fails")
        assert match_known(known, found, CPU_214).id == "numfuzz-fmin-fmax-decomposition-strides"
    assert match_known(known, Signature("inductor", "metadata", fingerprint="db.minimum: strides (#) where eager gives (#)"), CPU_214) is None


def test_an_fp32_affine_grid_under_autocast_is_a_known_limitation_and_other_dtype_mismatches_new():
    known = load_known()
    for said in ("affine_grid: fp32 where eager gives fp16", "db.linalg.pinv: fp32 where eager gives bf16"):
        issue = match_known(known, Signature("inductor", "mismatch", fingerprint=said), CPU_214)
        assert issue.id == "autocast-composite-kernel-inner-cast" and issue.kind == "limitation"
    assert match_known(known, Signature("inductor", "mismatch", fingerprint="affine_grid: fp16 where eager gives fp32"), CPU_214) is None
    assert match_known(known, Signature("inductor", "mismatch", fingerprint="nll_loss: bf16 where eager gives fp32"), CPU_214) is None


def test_emulate_precision_casts_crashing_on_cpu_is_the_known_keyword_bug():
    from numfuzz.judge.crash import crash_fingerprint

    said = "InductorError: TypeError: CppVecOverrides.to_dtype() got an unexpected keyword argument 'use_compute_types'"
    crash = Signature("inductor:emulate_precision_casts=1", "crash_compile:InductorError", fingerprint=crash_fingerprint(said))
    known = load_known()
    assert match_known(known, crash, CPU_29).id == "inductor-cpu-emulate-casts-to-dtype-keyword"
    assert match_known(known, Signature("inductor", "crash_compile:InductorError", fingerprint=crash_fingerprint(said)), CPU_29) is None


def test_a_database_op_is_known_under_its_hand_written_counterparts_issue():
    """The 2.15.0 campaign's bf16 `db.std` (torch.std) of values near 1e-23 underflowed in Inductor's fp32 accumulator:
    the var/std issue names `std`, and claims the database's std; masked.var is another computation, and stays new."""
    known = load_known()
    assert match_known(known, Signature("inductor", "less_accurate", ("db.std",), "bf16", "cancellation"), CPU_214).id == "inductor-cpu-var-fp32-accumulator"
    assert match_known(known, Signature("inductor", "less_accurate", ("db.masked.var",), "bf16", "cancellation"), CPU_214) is None


def test_a_scalar_no_op_returning_its_input_is_the_aliasing_issue_from_the_torch_that_has_it():
    """The 2.15.0 campaign's `x + 0.0`: Inductor returns x itself (pytorch#197893); torch 2.9.1 and 2.11 return a new tensor."""
    known = load_known()
    found = Signature("inductor", "metadata", fingerprint="add_scalar: a view of input x# where eager gives a new tensor")
    assert match_known(known, found, {**CPU_214, "torch": "2.15.0"}).id == "pytorch-197893-noop-output-aliases-input"
    assert match_known(known, found, CPU_29) is None
    assert match_known(known, Signature("inductor", "metadata", fingerprint="db.clone: a view of input x# where eager gives a new tensor"), CPU_214) is None


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
    from dataclasses import replace

    found = match_known(load_known(), replace(signature, target=target), versions)
    assert (found.id if found else None) == entry


def test_a_bitcast_to_bytes_after_a_transpose_failing_to_lower_is_pytorch_185515_before_torch_2_15():
    from numfuzz.judge.crash import crash_fingerprint

    message = "InductorError: LoweringException: RuntimeError: self.stride(-1) must be 1 to view Float as Byte (different element sizes), but got 6"
    crash = Signature("inductor", "crash_compile:InductorError", ("view_dtype",), fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), crash, CPU_29).id == "pytorch-185515"
    assert match_known(load_known(), crash, {**CPU_29, "torch": "2.15.0"}) is None  # lowered there: a new finding


def test_a_write_through_unfold_windows_is_the_overlap_ban_or_the_gaps_zeroed():
    """Overlapping windows: torch.compile's functionalization refuses by design; windows with gaps: the base zeroed."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "BackendCompilerFailed: backend='inductor' raised: RuntimeError: While executing unfold, functionalization encountered a tensor being mutated that has internal overlap. When using torch.compile"
    banned = Signature("inductor", "crash_compile:BackendCompilerFailed", ("abs_inplace_windows",), fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), banned, CPU_29).id == "pytorch-165409"
    zeroed = Signature("inductor", "less_accurate", ("abs_inplace_windows",), "fp32", "unexplained")
    assert match_known(load_known(), zeroed, CPU_29).id == "pytorch-198102"
    assert match_known(load_known(), Signature("inductor", "less_accurate", ("abs",), "fp32", "unexplained"), CPU_29) is None


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


def test_the_inductor_2_15_campaigns_floor_divide_upsample_abort_strides_and_unchecked_groups_are_known():
    """The 30-minute torch 2.15.0 campaign's groups: each upstream issue or numfuzz entry claims its group, no other."""
    from numfuzz.judge.crash import crash_fingerprint

    known, cpu = load_known(), {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    floor = Signature("inductor", "less_accurate", ("db.floor_divide",), "bf16", "unexplained")
    assert match_known(known, floor, cpu).id == "pytorch-197895"
    assert match_known(known, Signature("inductor", "exact_mismatch", ("db.floor_divide",), fingerprint="x"), cpu) is None  # integers
    values = "db.nn.functional.upsample_bilinear: values differ from eager's at # of # elements (by up to #)"
    assert match_known(known, Signature("inductor", "exact_mismatch", ("db.nn.functional.upsample_bilinear",), fingerprint=values), cpu).id == "pytorch-113024"
    abort = Signature("inductor", "abort", ("db.embedding", "db.nn.functional.conv_transpose3d"), mode="threads=2")
    assert match_known(known, abort, cpu).id == "pytorch-195402"
    assert match_known(known, Signature("inductor", "abort", ("db.nn.functional.conv_transpose3d",)), cpu) is None
    strides = Signature("inductor", "metadata", ("batch_norm",), fingerprint="batch_norm: strides (#) where eager gives (#), so a flat view fails")
    assert match_known(known, strides, cpu).id == "pytorch-192668"
    mv = "eager raised RuntimeError: addmv input tensors must have the same dtype, but got Char, Int, and Char; the target returned outputs"
    assert match_known(known, Signature("inductor", "unchecked", ("db.__rmatmul__",), fingerprint=crash_fingerprint(mv)), cpu).id == (
        "numfuzz-inductor-mv-mixed-dtypes-unchecked"
    )
    old = "eager raised RuntimeError: expected scalar type Int but found Char; the target returned outputs"
    assert (
        match_known(known, Signature("inductor", "unchecked", ("db.matmul",), fingerprint=crash_fingerprint(old)), CPU_29).id
        == "numfuzz-inductor-mv-mixed-dtypes-unchecked"
    )
    assert match_known(known, Signature("inductor", "unchecked", ("db.add",), fingerprint=crash_fingerprint(old)), CPU_29) is None
    pool = "eager raised NotImplementedError: \"avg_pool3d_out_frame\" not implemented for 'BFloat16'; the target returned outputs"
    lrn = match_known(known, Signature("inductor", "unchecked", ("db.nn.functional.local_response_norm",), fingerprint=crash_fingerprint(pool)), cpu)
    assert lrn.id == "pytorch-83321" and lrn.kind == "limitation"


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


def test_a_compiled_integer_floor_division_lost_to_sigfpe_is_pytorch_143649_until_its_fix():
    """The campaign's int64 floor_divide by 0 (and the lowest value by -1): SIGFPE compiled before torch 2.15."""
    signature = Signature("thunder:torchcompile", "segfault", ("db.floor_divide",))
    entry = match_known(load_known(), signature, THUNDER_MAIN)
    assert entry.id == "pytorch-143649-integer-div-by-zero-sigfpe" and entry.fixed_in == "PR #186021"
    assert match_known(load_known(), Signature("inductor", "segfault", ("db.floor_divide",)), CPU_29).id == entry.id
    assert match_known(load_known(), Signature("inductor", "segfault", ("db.floor_divide",)), {"torch": "2.15.0", "device": "cpu"}) is None
    other = match_known(load_known(), Signature("inductor", "segfault", ("db.remainder",)), CPU_29)
    assert other is None or other.id != entry.id


def test_a_special_polynomial_compiled_as_its_recurrence_without_fma_is_known_as_no_bug():
    """shifted_chebyshev_polynomial_v(16, 9): compiled is the fp32 recurrence without FMA (2.15 ULP), eager with it."""
    signature = Signature("thunder:torchcompile", "less_accurate", ("db.special.shifted_chebyshev_polynomial_v",), "fp32", "kernel_accuracy")
    entry = match_known(load_known(), signature, THUNDER_MAIN)
    assert entry.id == "numfuzz-special-polynomial-recurrence-without-fma" and entry.kind == "limitation"
    assert (
        match_known(load_known(), Signature("inductor", "less_accurate", ("db.special.chebyshev_polynomial_t",), "fp32", "kernel_accuracy"), CPU_214).id
        == entry.id
    )
    assert (
        match_known(load_known(), Signature("thunder:torch", "less_accurate", ("db.special.chebyshev_polynomial_t",), "fp32", "kernel_accuracy"), CPU_29)
        is None
    )
    for op in ("db.special.hermite_polynomial_h", "db.special.laguerre_polynomial_l", "db.special.legendre_polynomial_p"):
        assert match_known(load_known(), Signature("inductor", "less_accurate", (op,), "fp32", "kernel_accuracy"), CPU_214).id == entry.id
    other = match_known(load_known(), Signature("inductor", "less_accurate", ("db.special.zeta",), "fp32", "kernel_accuracy"), CPU_214)
    assert other is None or other.id != entry.id


def test_any_all_with_an_empty_dim_failing_to_compile_on_torch_2_9_is_the_empty_dim_bug():
    from numfuzz.judge.crash import crash_fingerprint

    message = "BackendCompilerFailed: backend='inductor' raised: AssertionError: size=[], stride=[2, 1]"
    crash = Signature("thunder:torchcompile", "crash_compile:BackendCompilerFailed", ("db.all",), fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), crash, CPU_29).id == "numfuzz-inductor-any-all-empty-dim-reduces-all-compile-error"
    assert match_known(load_known(), crash, THUNDER_MAIN) is None  # torch 2.11 compiles it: the mismatch entry's


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


def test_a_lost_worker_not_yet_minimised_is_matched_by_its_programs_ops_to_a_rule_naming_its_symptom():
    """The campaign's SIGFPE: a program holding int64 fmod by a 0-d divisor 0, lost before any op was named (pytorch#154420 until 2.13)."""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.program.ir import Graph, Node, TensorSpec

    inputs = (TensorSpec((5,), "i64"), TensorSpec((), "i64"), TensorSpec((4,), "fp16"))
    graph = Graph(inputs, (Node.make("db.fmod", [0, 1], form="torch.fmod({0}, {1})", sample=9), Node.make("softplus", [2])), (3, 4))
    lost = Signature("thunder:torchcompile", "segfault")
    key = GroupKey.of(lost, graph, None, load_known(), THUNDER_MAIN)
    assert key.known is not None and key.known.id == "pytorch-154420-integer-mod-by-zero-sigfpe" and key.known.fixed_in == "PR #179923"
    assert GroupKey.of(lost, graph, None, load_known(), {**THUNDER_MAIN, "torch": "2.15.0"}).known is None  # fixed there
    assert match_known(load_known(), lost, THUNDER_MAIN) is None  # no program at hand: no op to match
    assert match_known(load_known(), Signature("inductor", "segfault", ("db.fmod",)), CPU_29).id == key.known.id  # minimised
    without = Graph(inputs, (Node.make("db.sub", [0, 1], form="torch.sub({0}, {1})", sample=0), Node.make("softplus", [2])), (3, 4))
    assert GroupKey.of(lost, without, None, load_known(), THUNDER_MAIN).known is None
    # an op rule that names no symptom keeps to a located culprit: a lost program holding the op is not its finding
    where = Graph(inputs, (Node.make("db.where", [2, 2, 2], form="{0}.where({1}, {2})", sample=0), Node.make("softplus", [2])), (3, 4))
    assert GroupKey.of(lost, where, None, load_known(), THUNDER_MAIN).known is None


def test_a_mode_rule_keeps_an_issue_on_or_off_an_autocast_region():
    """`modes` and `not_modes` match how the case compiled (`Signature.mode`), as `targets` and `not_targets` match the target."""
    (inside, outside) = parse_known(
        '[[issue]]\nid = "in"\ntitle = "t"\nstatus = "s"\nmodes = ["*autocast*"]\n'
        '[[issue]]\nid = "out"\ntitle = "t"\nstatus = "s"\nnot_modes = ["*autocast*"]\n',
        "user.toml",
    )
    region = Signature("thunder:torch", "crash_compile:RuntimeError", ("bmm",), mode="autocast=bf16")
    plain = Signature("thunder:torch", "crash_compile:RuntimeError", ("bmm",))
    assert inside.matches(region, CPU_29) and not inside.matches(plain, CPU_29)
    assert outside.matches(plain, CPU_29) and not outside.matches(region, CPU_29)


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
    region's same message (bmm kept in fp32) is not this entry's."""
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
    other = match_known(load_known(), region, THUNDER_MAIN)
    assert other is None or other.id != entry
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


def test_a_compiled_std_of_one_infinite_element_giving_0_is_known():
    """std(x, dim=-1, correction=0) of an fp16 -inf (a Thunder-main campaign): NaN in eager, 0 compiled."""
    entry = "numfuzz-inductor-std-var-of-one-element-drops-inf"
    for target in ("thunder:torchcompile", "inductor"):
        signature = Signature(target, "nonfinite_class", ("std",), "fp16", "nonfinite_dropped")
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
    other = match_known(load_known(), Signature("inductor", "nonfinite_class", ("sum",), "fp16", "nonfinite_dropped"), THUNDER_MAIN)
    assert other is None or other.id != entry


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


def test_compiled_addmv_of_mixed_integer_dtypes_is_known_until_it_was_fixed():
    """A Thunder-main campaign's addmv(uint8, int8, int8): int16 compiled, int8 in eager, on torch 2.11; both raise on 2.15."""
    for target in ("thunder:torchcompile", "inductor"):
        for op in ("db.addmv",):
            found = Signature(target, "mismatch", (op,), "integer")
            assert match_known(load_known(), found, THUNDER_MAIN).id == "pytorch-147108"
            fixed = match_known(load_known(), found, {**THUNDER_MAIN, "torch": "2.15.0"})
            assert fixed is None or fixed.id != "pytorch-147108"


def test_the_masked_scalar_blendv_compile_error_is_known_on_torch_2_11_in_any_region():
    """The sweep's LED training step on Inductor (torch 2.11.0): a C++ compile error no op names; any region meets it."""
    from numfuzz.judge.crash import crash_fingerprint

    message = (
        "InductorError: CppCompileError: C++ compile error: cannot convert \u2018float\u2019 to "
        "\u2018const at::vec::CPU_CAPABILITY::VectorizedN<float, 2>&\u2019"
    )
    signature = Signature("inductor", "crash_compile:InductorError", ("?",), fingerprint=crash_fingerprint(message))
    assert match_known(load_known(), signature, THUNDER_MAIN).id == "pytorch-173626"
    assert match_known(load_known(), signature, {**THUNDER_MAIN, "torch": "2.9.1"}) is None
    qwen3_next = "InductorError: CppCompileError: C++ compile error: \u2018decltype\u2019 evaluates to \u2018float\u2019, which is not a class or enumeration type"
    signature = Signature("inductor", "crash_compile:InductorError", fingerprint=crash_fingerprint(qwen3_next))
    assert match_known(load_known(), signature, THUNDER_MAIN).id == "pytorch-173626"
    other = Signature("inductor", "crash_compile:InductorError", ("?",), fingerprint=crash_fingerprint("InductorError: CppCompileError: C++ compile error: x"))
    assert match_known(load_known(), other, THUNDER_MAIN) is None


def test_integer_division_by_zero_sigfpe_is_known_through_div_with_a_rounding_mode():
    """A Thunder-main campaign's lost worker: torch.div(a, b, rounding_mode='floor') of int8 0-d values, b = 0 (SIGFPE)."""
    for op in ("db.div.floor_rounding", "db.div.trunc_rounding", "db.floor_divide"):
        found = Signature("thunder:torchcompile", "segfault", (op,))
        assert match_known(load_known(), found, THUNDER_MAIN).id == "pytorch-143649-integer-div-by-zero-sigfpe"
        fixed = match_known(load_known(), found, {**THUNDER_MAIN, "torch": "2.15.0"})
        assert fixed is None or fixed.id != "pytorch-143649-integer-div-by-zero-sigfpe"


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


def test_compiled_select_scatter_broadcasting_a_src_eager_refuses_is_known():
    """The house check's select_scatter(x, src, 0, 2) of a bf16 (3, 1) x and a 0-d src: eager raises, compiled fills the row."""
    message = "eager raised RuntimeError: expected src to have a size equal to the slice of self. src size = [], slice size = [1]; the target returned outputs"
    entry = "numfuzz-inductor-select-scatter-src-broadcast-unchecked"
    for target, versions in (("thunder:torchcompile", THUNDER_MAIN), ("inductor", CPU_29), ("inductor", CPU_214)):
        found = Signature(target, "unchecked", ("db.select_scatter",), fingerprint=message)
        assert match_known(load_known(), found, versions).id == entry
    other = match_known(load_known(), Signature("inductor", "unchecked", ("db.slice_scatter",), fingerprint=message), CPU_214)
    assert other is None or other.id != entry


def test_compiled_addmv_of_a_two_dimensional_self_eager_refuses_is_the_fixed_decomposition_check():
    """A Thunder-main campaign's addmv(x, x, v) of a (1, 1) x and a (1,) v: eager raises, torch 2.11's decomposition computes."""
    message = "eager raised RuntimeError: vector + matrix @ vector expected, got #, #, #; the target returned outputs"
    entry = "pytorch-195579-addmm-addmv-decomposition-unchecked"
    for target, versions in (("thunder:torchcompile", THUNDER_MAIN), ("inductor", CPU_29)):
        assert match_known(load_known(), Signature(target, "unchecked", ("db.addmv",), fingerprint=message), versions).id == entry
    newest = {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    assert match_known(load_known(), Signature("inductor", "unchecked", ("db.addmv",), fingerprint=message), newest) is None


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


def test_integer_trunc_division_by_zero_still_traps_on_torch_2_15():
    """A torch 2.15.0 campaign's lost worker: div(a, b, rounding_mode='trunc') of uint8 and int32 with zero divisors."""
    newest = {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    found = Signature("inductor", "segfault", ("db.div.trunc_rounding",))
    assert match_known(load_known(), found, newest).id == "numfuzz-inductor-integer-trunc-div-by-zero-sigfpe"
    floor = match_known(load_known(), Signature("inductor", "segfault", ("db.div.floor_rounding",)), newest)
    assert floor is None


def test_an_op_eager_refuses_by_dtype_computed_compiled_is_known_upstream():
    """A torch 2.15.0 campaign's var(x, dim=1) of an int64: eager raises NotImplementedError, Inductor returns (pytorch#198155)."""
    newest = {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    message = "eager raised NotImplementedError: std and var only support floating point and complex dtypes; the target returned outputs"
    assert match_known(load_known(), Signature("inductor", "unchecked", ("db.var",), fingerprint=message), newest).id == "pytorch-198155"
    kernel = "eager raised NotImplementedError: \"softmax_lastdim_kernel_impl\" not implemented for 'Long'; the target returned outputs"
    assert match_known(load_known(), Signature("inductor", "unchecked", ("db.softmax",), fingerprint=kernel), newest).id == "pytorch-198155"
    other = match_known(load_known(), Signature("inductor", "unchecked", ("db.var",), fingerprint="eager raised RuntimeError: x"), newest)
    assert other is None or other.id != "pytorch-198155"


def test_a_compiled_out_of_bounds_as_strided_copy_segfault_is_known_upstream():
    """A torch 2.15.0 campaign's lost worker: as_strided_copy of an empty tensor with a (2, 2) view (pytorch#147077)."""
    newest = {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    assert match_known(load_known(), Signature("inductor", "segfault", ("db.as_strided_copy",)), newest).id == "pytorch-147077"


def test_thunderfx_s_count_of_differentiable_outputs_is_known_for_thunderfx_only():
    """LED's training step on thunderfx: a number-valued output beside a differentiable one."""
    from numfuzz.judge.crash import crash_fingerprint

    message = "AssertionError: (no message; raised in forward, torch_autograd.py)"
    for target, known in (("thunderfx:torchcompile", "numfuzz-thunderfx-number-output-differentiable-count"), ("inductor", None)):
        signature = Signature(target, "crash_compile:AssertionError", ("",), fingerprint=crash_fingerprint(message))
        found = match_known(load_known(), signature, THUNDER_MAIN)
        assert (found.id if found else None) == known, (target, found)


def test_aminmax_s_backward_is_amaxs_known_nan_whatever_op_feeds_it():
    """A torch 2.15.0 campaign: the gradient of x through `aminmax(x.clone().tan_(), dim=0)[1]` in bf16 is NaN at every
    element (pytorch#186799: the backward's recomputed fp32 tan ties with no bf16-rounded extreme)."""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.judge.facts import Analysis, Culprit
    from numfuzz.program.ir import Graph, Node, TensorSpec

    reduce = Node.make("db.aminmax", [1], form="torch.aminmax({0}, dim=0)[1]", sample=7)
    graph = Graph((TensorSpec((43,), "bf16"),), (Node.make("tan_inplace", [0]), reduce), (2,))
    nan = Signature("inductor", "nonfinite", ("tan_inplace",), "bf16", "backward")
    fallback = "fallback (no op's backward alone is less accurate on the target)"
    facts = Analysis(1, "backward", op="tan_inplace", dtype="bf16", culprit=Culprit(0, "tan_inplace", "bf16", "", fallback), gradient_of=0)
    newest = {"torch": "2.15.0+cu132", "device": "cpu", "thunder": "absent"}
    key = GroupKey.of(nan, graph, facts, load_known(), newest)
    assert key.known is not None and key.known.id == "pytorch-186799"
    without = Graph(graph.inputs, (Node.make("tan_inplace", [0]), Node.make("abs", [1])), (2,))
    assert GroupKey.of(nan, without, facts, load_known(), newest).known is None  # no extreme taken downstream


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
