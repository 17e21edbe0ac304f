"""Each cause is said once (`judge.cause`): what tests it, keeps it, titles its group and phrases it reads from there."""

from __future__ import annotations

from numfuzz.corpus.known import load_known
from numfuzz.judge import cause as cause_module
from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.cause import CAUSES, EMULATED_ROUNDING, LOW_PRECISION, STALE_SCALAR, Cause, Kept, kept_whatever_the_bound, root_title
from numfuzz.judge.cause_tests import CAUSE_TESTS, Stage, decided_facts, steps_at
from numfuzz.judge.causes import unexplained
from numfuzz.judge.evidence import Evidence
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.targets import resolve


def test_every_cause_has_exactly_one_entry_in_cause_tests():
    constants = [value for value in vars(cause_module).values() if isinstance(value, Cause)]
    tested = [one.cause for one in CAUSE_TESTS]
    assert sorted(c.name for c in constants) == sorted(c.name for c in tested) == sorted(CAUSES)
    assert len(set(c.name for c in tested)) == len(tested)
    assert all(CAUSES[c.name] is c for c in tested)


def test_cause_tests_read_in_the_order_the_stages_run():
    order = list(Stage)
    for one in CAUSE_TESTS:  # a cause's steps: at most one per stage, in stage order
        stages = [order.index(step.stage) for step in one.steps]
        assert one.steps and stages == sorted(set(stages)), one.cause.name
    firsts = [order.index(one.steps[0].stage) for one in CAUSE_TESTS]
    assert firsts == sorted(firsts)
    assert steps_at(Stage.AFTER_LOCATING)[-1].test is unexplained  # the test that always holds comes last


def test_every_tested_cause_has_words_of_its_own():
    phrases = [c.phrase for c in CAUSES.values()]
    assert all(phrases) and len(set(phrases)) == len(phrases)


def test_kept_causes_and_root_titles_come_from_the_cause():
    assert kept_whatever_the_bound(STALE_SCALAR.name, narrow=False) and EMULATED_ROUNDING.kept is Kept.ALWAYS
    assert kept_whatever_the_bound(LOW_PRECISION.name, narrow=True) and not kept_whatever_the_bound(LOW_PRECISION.name, narrow=False)
    assert not kept_whatever_the_bound("cancellation", narrow=True) and not kept_whatever_the_bound("no such cause", narrow=True)
    assert root_title("emulated_rounding") and not root_title("cancellation")


def test_known_issues_name_only_causes_that_exist():
    named = {cause for issue in load_known() for cause in issue.causes}
    assert named <= set(CAUSES), named - set(CAUSES)


def test_a_second_call_that_kept_the_first_scalar_is_decided_whole_at_its_stage():
    """The stale scalar's stage comes first and files the finding at the op whose scalar was kept; other outcomes pass it by."""
    graph = Graph(
        (TensorSpec((4,), "fp32"),),
        (Node.make("exp", [0]), Node.make("clamp_scalar", [1], min=-1.7, max=0.7, passed=(("max", 0.3),))),
        (2,),
    )
    stale = Outcome(Verdict.LESS_ACCURATE, at="second_call")
    stale.second_size = {"scalars": [["max_1", 0.7, 0.3]], "stale_scalars": ["max_1"]}
    facts = decided_facts(Evidence(graph, [], resolve("eager"), "cpu", stale, 0), load_bounds([]))
    assert (facts.cause, facts.op, facts.dtype) == (STALE_SCALAR.name, "clamp_scalar", "fp32")
    assert "max_1 = 0.3 (first call: 0.7)" in facts.evidence[0]
    fresh = Outcome(Verdict.LESS_ACCURATE)  # no second call, no runs: no stage that decides the whole facts applies
    assert decided_facts(Evidence(graph, [], resolve("eager"), "cpu", fresh, 0), load_bounds([])) is None
