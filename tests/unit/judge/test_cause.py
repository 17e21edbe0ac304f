"""Each cause is said once (`judge.cause`): what tests it, keeps it, titles its group and phrases it reads from there."""

from __future__ import annotations

from numfuzz.corpus.known import load_known
from numfuzz.judge.cause import CAUSES, EMULATED_ROUNDING, LOW_PRECISION, STALE_SCALAR, Kept, kept_whatever_the_bound, root_title
from numfuzz.judge.causes import CAUSE_TESTS


def test_every_tested_cause_is_a_cause_with_words_of_its_own():
    assert all(CAUSES[one.cause.name] is one.cause for one in CAUSE_TESTS)
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
