"""The metadata oracle: strides where eager's are the contract, aliasing with inputs and between outputs, viewability;
its verdict only where the values are clean, its fingerprints, and the minimiser's predicate on it."""

from __future__ import annotations

import torch
from stride_bug_target import StrideBug

from numfuzz.judge.crash import metadata_fingerprints
from numfuzz.judge.execute import Outcome, evaluate
from numfuzz.judge.metadata import _dense, keeps_output_strides, metadata_differences
from numfuzz.judge.signature import renamed, same_finding, signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets.eager import Eager
from numfuzz.targets.inductor import Inductor

X = torch.arange(12.0).reshape(3, 4)


def test_a_dense_output_in_other_strides_is_named_with_both_strides():
    got = X.mT.contiguous().mT  # the same values, column-major
    assert metadata_differences(["exp"], [X], [got], None, True) == ["output 0 (exp): strides (1, 3) where eager gives (4, 1), so a flat view fails"]


def test_size_one_dims_single_elements_and_empty_outputs_have_no_layout_to_keep():
    row = torch.ones(1, 5)
    odd = torch.as_strided(torch.ones(5), (1, 5), (7, 1))  # a size-1 dim's stride is free
    assert metadata_differences(["exp"], [row], [odd], None, True) == []
    assert metadata_differences(["sum"], [torch.ones(1, 1)], [torch.as_strided(torch.ones(1), (1, 1), (3, 9))], None, True) == []
    assert metadata_differences(["exp"], [torch.ones(0, 3)], [torch.ones(3, 0).mT], None, True) == []


def test_a_non_dense_output_is_held_to_its_viewability_only():
    expanded = torch.ones(4, 1).expand(4, 3)  # eager: stride 0, neither contiguous nor flat-viewable
    assert metadata_differences(["expand"], [expanded], [expanded.contiguous()], None, True) == []  # no loss
    stepped = torch.ones(4, 7)[:, ::2]  # eager: strides (7, 2), a flat view is not possible either
    assert metadata_differences(["slice"], [stepped], [torch.ones(4, 4).mT], None, True) == []
    one_step = torch.ones(2, 6)[:, ::2]  # eager: strides (6, 2), not dense, yet a flat view works
    twisted = torch.ones(3, 4)[:, ::2].mT  # (2, 3) with strides (2, 4): no flat view
    assert metadata_differences(["slice"], [one_step], [twisted], None, True) == ["output 0 (slice): a flat view fails where eager's works"]


def test_dense_is_what_torch_calls_non_overlapping_and_dense():
    import torch._prims_common as common

    torch_s = getattr(common, "is_non_overlapping_and_dense", None) or common.is_non_overlapping_and_dense_or_false
    base = torch.ones(48)
    layouts = [
        ((3, 4), (4, 1)),
        ((3, 4), (1, 3)),
        ((2, 3, 4), (1, 8, 2)),
        ((3, 4), (0, 1)),
        ((3, 3), (1, 1)),
        ((3, 4), (5, 1)),
        ((1, 4), (9, 1)),
        ((4, 1), (1, 7)),
    ]
    for shape, strides in layouts:
        t = torch.as_strided(base, shape, strides)
        assert _dense(t) == bool(torch_s(t)), (shape, strides)


def test_aliasing_with_an_input_must_be_eager_s():
    x = X.clone()
    view, fresh = x.t(), x.t().clone()
    assert metadata_differences(["transpose"], [view], [fresh], [x], True) == ["output 0 (transpose): a new tensor where eager gives a view of input x0"]
    y = torch.ones(4, 3)
    assert metadata_differences(["add"], [fresh], [y], [x, y], True) == ["output 0 (add): a view of input x1 where eager gives a new tensor"]
    assert metadata_differences(["transpose"], [view], [x.t()], [x], True) == []
    assert metadata_differences(["transpose"], [view], [fresh], None, True) == []  # the sides ran on their own inputs


def test_outputs_that_share_memory_must_share_it_as_eager_s_do():
    base = torch.ones(3, 4)
    eager = [base, base.view(12)]
    apart = [torch.ones(3, 4), torch.ones(12)]
    assert metadata_differences(["exp", "reshape"], eager, apart, [X], True) == ["outputs 0 and 1 (exp, reshape): do not share memory where eager's do"]
    assert metadata_differences(["exp", "reshape"], apart, eager, [X], True) == ["outputs 0 and 1 (exp, reshape): share memory where eager's do not"]


def test_a_target_that_does_not_promise_strides_is_held_to_aliasing_only():
    x = X.clone()
    got = X.mT.contiguous().mT
    assert metadata_differences(["exp"], [X], [got], [x], False) == []
    assert metadata_differences(["transpose"], [x.t()], [x.t().clone()], [x], False) != []


def test_who_promises_eager_s_strides():
    assert keeps_output_strides(Inductor(None)) and keeps_output_strides(Eager())
    assert not keeps_output_strides(Inductor("keep_output_stride=0")) and not keeps_output_strides(Inductor("pad_outputs=1"))
    assert not keeps_output_strides(object())  # a target that does not say (Thunder): no promise


def test_fingerprints_keep_the_op_and_the_kind_and_drop_places_and_ranks():
    detail = "output 1 (exp): strides (1, 3) where eager gives (4, 1); outputs 0 and 2 (add, input x1): share memory where eager's do not"
    assert metadata_fingerprints(detail) == ["exp: strides (#) where eager gives (#)", "add, input x#: share memory where eager's do not"]
    assert metadata_fingerprints("output 0 (exp): strides (1, 3, 12) where eager gives (12, 4, 1)")[0] == metadata_fingerprints(detail)[0]


SIGMOID = Graph((TensorSpec((4, 5), "fp32"),), (Node.make("sigmoid", [0]), Node.make("add", [1, 0])), (2,))
SAMPLES = [[torch.linspace(-2.0, 2.0, 20).reshape(4, 5)], [torch.linspace(-1.0, 3.0, 20).reshape(4, 5)]]


def test_a_planted_stride_bug_is_a_metadata_finding_and_its_control_is_clean():
    found = evaluate(SIGMOID, SAMPLES, StrideBug(True), "cpu")
    assert found.verdict is Verdict.METADATA and found.verdict.is_finding and not found.verdict.is_accuracy
    assert found.detail == "output 0 (add): strides (1, 4) where eager gives (5, 1), so a flat view fails"
    assert evaluate(SIGMOID, SAMPLES, StrideBug(False), "cpu").verdict is Verdict.EQUAL


class _WrongAndTransposed(Eager):
    """Every output column-major and off by a lot: a value finding, which the metadata difference must not hide."""

    def prepare(self, fn, device):
        return lambda *args: tuple((o * 1.01).mT.contiguous().mT for o in fn(*args))


def test_a_value_finding_takes_precedence_over_a_metadata_difference():
    assert evaluate(SIGMOID, SAMPLES, _WrongAndTransposed(), "cpu").verdict is Verdict.LESS_ACCURATE


def test_the_minimiser_keeps_the_same_kind_of_difference_whatever_op_shows_it():
    signature = signature_of("stride_bug", evaluate(SIGMOID, SAMPLES, StrideBug(True), "cpu"))
    assert signature.fingerprint == "add: strides (#) where eager gives (#), so a flat view fails"
    alone = "output 0 (sigmoid): strides (1, 2) where eager gives (2, 1), so a flat view fails"  # the add dropped: the sigmoid shows it
    both = "output 0 (exp): a new tensor where eager gives a view of input x0; " + alone
    assert same_finding(signature, SIGMOID, Outcome(Verdict.METADATA, alone)) and same_finding(signature, SIGMOID, Outcome(Verdict.METADATA, both))
    assert renamed(signature, Outcome(Verdict.METADATA, both)).fingerprint == "sigmoid: strides (#) where eager gives (#), so a flat view fails"
    other = "output 0 (add): strides (1, 2) where eager gives (2, 1)"  # viewable after all: another kind of difference
    assert not same_finding(signature, SIGMOID, Outcome(Verdict.METADATA, other))
    assert not same_finding(signature, SIGMOID, Outcome(Verdict.EQUAL))
    crash = signature_of("stride_bug", Outcome(Verdict.CRASH_RUN, "RuntimeError: exp: bad"))
    assert not same_finding(crash, SIGMOID, Outcome(Verdict.CRASH_RUN, "RuntimeError: add: bad"))  # a crash keeps its whole message
