"""A dim numfuzz marked dynamic that the program specialises is counted as numfuzz's own doing, at either size."""

from numfuzz.campaign.recorder import _own_mark
from numfuzz.judge.execute import OWN_MARK, Outcome
from numfuzz.judge.second_size import second_size_note
from numfuzz.judge.verdicts import Verdict


def test_an_own_mark_at_the_first_size_or_the_second_is_counted_and_nothing_else_is():
    invalid = Outcome(Verdict.INVALID, f"{OWN_MARK}: a marked dim is one the program specialises (...)")
    assert _own_mark(Verdict.INVALID, invalid.to_json())
    first = Outcome(Verdict.EQUAL)
    first.second_size = second_size_note(invalid)  # a clean first size keeps what its second size saw
    assert first.second_size["own_mark"] and _own_mark(Verdict.EQUAL, first.to_json())
    assert not _own_mark(Verdict.INVALID, Outcome(Verdict.INVALID, "eager raised ValueError: ...").to_json())
    assert not _own_mark(Verdict.EQUAL, Outcome(Verdict.EQUAL).to_json())
