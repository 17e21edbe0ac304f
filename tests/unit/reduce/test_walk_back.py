"""After shrinking, the minimiser walks back to the latest accepted case that its analysis still calls a finding."""

from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.reduce.minimize import WALK_BACK_ANALYSES, _latest_finding


def _walk(holds_up_to: int, n: int):
    asked = []

    def analysed(i):
        asked.append(i)
        return Outcome(Verdict.LESS_ACCURATE if i <= holds_up_to else Verdict.WITHIN_ROUNDING)

    return _latest_finding(list(range(n)), analysed), asked


def test_the_last_case_is_kept_when_it_is_still_a_finding():
    found, asked = _walk(holds_up_to=9, n=10)
    assert found[0] == 9 and asked == [9]


def test_a_case_shrunk_into_rounding_walks_back_by_bisection():
    for holds_up_to in range(0, 9):
        found, asked = _walk(holds_up_to, n=10)
        assert found is not None and found[0] == holds_up_to and found[1].verdict is Verdict.LESS_ACCURATE
        assert len(asked) <= WALK_BACK_ANALYSES


def test_none_when_no_accepted_case_is_a_finding():
    found, asked = _walk(holds_up_to=-1, n=10)
    assert found is None and len(asked) <= WALK_BACK_ANALYSES
