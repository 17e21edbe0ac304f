"""Known PyTorch issues (Inductor, Dynamo, meta functions): each entry takes its finding on the torch that has it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import CPU_29, CPU_214, THUNDER_MAIN

from numfuzz.corpus.known import load_known, match_known, parse_known
from numfuzz.judge.signature import Signature


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


def test_a_compiled_std_of_one_infinite_element_giving_0_is_known():
    """std(x, dim=-1, correction=0) of an fp16 -inf (a Thunder-main campaign): NaN in eager, 0 compiled."""
    entry = "numfuzz-inductor-std-var-of-one-element-drops-inf"
    for target in ("thunder:torchcompile", "inductor"):
        signature = Signature(target, "nonfinite_class", ("std",), "fp16", "nonfinite_dropped")
        assert match_known(load_known(), signature, THUNDER_MAIN).id == entry
    other = match_known(load_known(), Signature("inductor", "nonfinite_class", ("sum",), "fp16", "nonfinite_dropped"), THUNDER_MAIN)
    assert other is None or other.id != entry


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
    qwen3_next = (
        "InductorError: CppCompileError: C++ compile error: \u2018decltype\u2019 evaluates to \u2018float\u2019, which is not a class or enumeration type"
    )
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


def test_a_bf16_conv2d_less_accurate_on_cpu_is_the_single_output_column_onednn_bug():
    """SegFormer's sequence reduction, a stride-8 conv2d with one output column: compiled in channels_last, wrong where
    eager's NCHW is right (pytorch#169688's class); an fp32 conv2d, or another op, is not it."""
    at_conv = Signature("inductor", "less_accurate", ("conv2d",), "bf16", "cancellation")
    for target in ("inductor", "thunderfx:torchcompile", "thunder:torchcompile"):
        assert match_known(load_known(), replace(at_conv, target=target), THUNDER_MAIN).id == "pytorch-169688-cpu-bf16-conv-single-output-column"
    assert match_known(load_known(), replace(at_conv, dtype="fp32"), THUNDER_MAIN) is None
    assert match_known(load_known(), replace(at_conv, ops=("linear",)), THUNDER_MAIN) is None


def test_a_compiled_batch_norm_gradient_less_accurate_is_the_backward_stride_mismatch():
    """The backward of pytorch#192668's stride mismatch: a batch norm's gradient, compiled through AOTAutograd on CPU;
    Thunder's own autograd is not it, nor a forward value."""
    grad = Signature("inductor", "less_accurate", ("batch_norm",), "fp32", "backward")
    for target in ("inductor", "thunderfx:torchcompile"):
        assert match_known(load_known(), replace(grad, target=target), THUNDER_MAIN).id == "pytorch-192668-batch-norm-backward-noncontiguous-grad"
    assert match_known(load_known(), replace(grad, target="thunder:torchcompile"), THUNDER_MAIN) is None
    forward = match_known(load_known(), replace(grad, cause="cancellation"), THUNDER_MAIN)  # the forward's own entries
    assert forward is None or forward.id != "pytorch-192668-batch-norm-backward-noncontiguous-grad"


def test_any_over_an_empty_dim_then_fliplr_failing_to_lower_is_the_empty_dim_bug_downstream():
    """The seed-1202 campaign's minimised crash names both ops: any(dim=()) gives Inductor a 0-dim value the graph's
    meta does not expect, and fliplr fails to lower; the same IndexError from another program is not it."""
    from numfuzz.judge.crash import crash_fingerprint

    said = crash_fingerprint("InductorError: IndexError: list index out of range")
    crash = Signature("thunder:torchcompile", "crash_compile:InductorError", ("db.any", "db.fliplr"), fingerprint=said)
    assert match_known(load_known(), crash, THUNDER_MAIN).id == "numfuzz-inductor-any-all-empty-dim-reduces-all-downstream"
    assert match_known(load_known(), replace(crash, ops=("db.fliplr",)), THUNDER_MAIN) is None


# an Inductor crash the model sweep met through thunderfx, known by its message: (entry, its message, a message of the same
# exception that is not it)
INDUCTOR_CRASHES_BY_MESSAGE = [
    # ConvBERT's training step: Inductor's backward meets a saved tensor of size 9*s24 whose s24 is never bound
    (
        "pytorch-155468-backward-input-size-expression-unbound",
        "InductorError: AssertionError: For 9*s24, expected [s24] to have been codegen-ed.",
        "InductorError: AssertionError: expected size 3 but got 4",
    ),
    # Kosmos-2.5's forward: Inductor's outer-loop fusion asks for a read of a mutation output by its name
    ("pytorch-196570-outer-loop-local-buffer-mutation-output", "InductorError: KeyError: 'buf23'", "InductorError: KeyError: 'x0'"),
    # GPT-J's training step: a vectorized loop's tail checks an indirect index under a scalar mask (torch 2.11 only)
    (
        "pytorch-178136-vecmask-of-a-scalar-mask",
        "InductorError: CppCompileError: C++ compile error: no matching function for call to ‘at::vec::CPU_CAPABILITY::VecMask<long int, 2>::VecMask(int&)’",
        "InductorError: CppCompileError: C++ compile error: ‘tmp2’ was not declared in this scope",
    ),
]


@pytest.mark.parametrize(("entry", "said", "other"), INDUCTOR_CRASHES_BY_MESSAGE)
def test_an_inductor_crash_the_sweep_met_is_known_by_its_message_and_another_of_its_exception_is_not(entry, said, other):
    from numfuzz.judge.crash import crash_fingerprint

    crash = Signature("thunderfx:torchcompile", "crash_compile:InductorError", fingerprint=crash_fingerprint(said))
    assert match_known(load_known(), crash, THUNDER_MAIN).id == entry
    found = match_known(load_known(), Signature("inductor", "crash_compile:InductorError", fingerprint=crash_fingerprint(other)), CPU_29)
    assert found is None or found.id != entry


def test_the_scalar_vecmask_crash_is_known_on_torch_2_11_only():
    """Fixed for torch 2.12 (pytorch#178148): the same words on torch 2.15 would be another bug."""
    from numfuzz.judge.crash import crash_fingerprint

    said = "InductorError: CppCompileError: C++ compile error: no matching function for call to ‘at::vec::VecMask<long int, 2>::VecMask(int&)’"
    crash = Signature("inductor", "crash_compile:InductorError", fingerprint=crash_fingerprint(said))
    assert match_known(load_known(), crash, THUNDER_MAIN).id == "pytorch-178136-vecmask-of-a-scalar-mask"
    assert match_known(load_known(), crash, {**CPU_214, "torch": "2.15.0+cu130"}) is None
