"""A campaign's cases judge their gradients at `--grad-share`, a block of cases alike, each with its upstream gradients."""

from __future__ import annotations

from numfuzz.address import COMPILE_BLOCK, CaseAddress
from numfuzz.corpus.make import make_case
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunMix, RunSpec
from numfuzz.targets.run_draw import draws_gradients


def test_a_grad_share_draws_gradients_for_whole_blocks_with_their_upstream_gradients():
    mix, run = RunMix(grad_share=0.5), RunSpec("eager", "cpu", samples=2)
    cases = [make_case(CaseAddress(100 + i, i, campaign=7), run, GenConfig(), mix) for i in range(4 * COMPILE_BLOCK)]
    blocks = [{c.run.grad for c in cases[b : b + COMPILE_BLOCK]} for b in range(0, len(cases), COMPILE_BLOCK)]
    assert all(len(kinds) == 1 for kinds in blocks)  # a block is alike: forward-only cases still batch
    assert {True, False} == set().union(*blocks)
    assert all(len(c.grads) == len(c.samples) for c in cases if c.run.grad) and all(not c.grads for c in cases if not c.run.grad)
    assert all(c.kinds == ["gradients"] for c in cases if c.run.grad)
    assert [draws_gradients(CaseAddress(0, b * COMPILE_BLOCK, campaign=7), mix) for b in range(4)] == [next(iter(k)) for k in blocks]


def test_no_grad_share_draws_no_gradients_and_the_other_draws_stay_as_they_were():
    run = RunSpec("inductor", "cpu", samples=2)
    without = [make_case(CaseAddress(i, i, campaign=3), run, GenConfig(), RunMix(dynamic=0.3, config_share=0.3)) for i in range(16)]
    with_grad = [make_case(CaseAddress(i, i, campaign=3), run, GenConfig(), RunMix(dynamic=0.3, config_share=0.3, grad_share=0.5)) for i in range(16)]
    assert not any(c.run.grad for c in without)
    assert [c.run.compiler_options for c in without] == [c.run.compiler_options for c in with_grad]  # the options drawn as before


def test_cases_whose_gradients_the_mix_draws_take_fewer_samples_and_a_grad_campaign_keeps_its_own():
    from numfuzz.run_spec import GRAD_SAMPLES

    run, mix = RunSpec("eager", "cpu", samples=GRAD_SAMPLES + 8), RunMix(grad_share=0.5)
    cases = [make_case(CaseAddress(200 + i, i, campaign=7), run, GenConfig(), mix) for i in range(4 * COMPILE_BLOCK)]
    drawn = {c.run.grad: c for c in cases}
    assert len(drawn[True].samples) == len(drawn[True].grads) == drawn[True].run.samples == GRAD_SAMPLES
    assert len(drawn[False].samples) == GRAD_SAMPLES + 8  # forward only: --samples
    every = make_case(CaseAddress(200, 0, campaign=7), run.with_changes(grad=True), GenConfig(), mix)
    assert len(every.samples) == GRAD_SAMPLES + 8  # --grad: every case's gradients, at --samples
