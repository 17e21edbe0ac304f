"""What the newest interpreters' answers say of a group: reproduces, fixed, changed, or unconfirmed."""

from pathlib import Path

from numfuzz.newest.confirmation import Confirmation, State, answer_of
from numfuzz.newest.interpreters import AnswerCache, Interpreter
from numfuzz.newest.replay_here import ReplayedHere

NEWEST = Interpreter(Path("newest/bin/python"), "2.15.0", "absent", "3.12.0")
MAIN = Interpreter(Path("main/bin/python"), "2.11.0", "0.2.7.dev0", "3.11.7")


def _row(now: str, symptom: str = "", through: bool = False, target: str = "inductor") -> ReplayedHere:
    return ReplayedHere("case.json", target, through, now, symptom or now)


def test_no_finding_there_is_fixed():
    answer = answer_of(NEWEST, "less_accurate", _row("equal"), None)
    assert answer.state is State.FIXED
    assert Confirmation([answer]).text() == "fixed in torch 2.15.0"


def test_the_same_kind_of_finding_reproduces():
    assert answer_of(NEWEST, "less_accurate", _row("nonfinite"), None).state is State.REPRODUCES  # both about the values
    assert answer_of(MAIN, "crash_compile:TypeError", _row("crash_compile", "crash_compile:TypeError"), None).state is State.REPRODUCES
    changed = answer_of(MAIN, "crash_compile:TypeError", _row("crash_compile", "crash_compile:NotImplementedError"), None)
    assert changed.state is State.CHANGED and "NotImplementedError" in changed.note


def test_an_answer_through_the_compiler_behind_counts_only_where_that_compiler_reproduces_it_here():
    there = _row("equal", through=True)
    assert answer_of(NEWEST, "less_accurate", there, _row("less_accurate", through=True)).state is State.FIXED
    untrusted = answer_of(NEWEST, "less_accurate", there, _row("equal", through=True))
    assert untrusted.state is State.NOT_RUN and "front end" in untrusted.note
    assert answer_of(NEWEST, "less_accurate", there, None).state is State.NOT_RUN


def test_fixed_anywhere_wins_and_says_where_it_is_still():
    confirmation = Confirmation(
        [answer_of(NEWEST, "less_accurate", _row("equal", through=True), _row("less_accurate")), answer_of(MAIN, "less_accurate", _row("less_accurate"), None)]
    )
    assert confirmation.state is State.FIXED
    assert confirmation.text() == "fixed in torch 2.15.0 (through inductor); still on thunder 0.2.7.dev0 (torch 2.11.0)"


def test_an_inductor_finding_gone_on_an_older_torch_and_back_on_the_newest_is_a_regression_not_fixed():
    """The 2.15.0 campaign's add_scalar output that is a view of its input: equal on Thunder main's torch 2.11.0 (through
    nothing: Inductor itself ran there), a finding again on 2.15.0. The older torch cannot call it fixed."""
    confirmation = Confirmation([answer_of(NEWEST, "metadata", _row("metadata"), None), answer_of(MAIN, "metadata", _row("equal"), None)])
    assert confirmation.state is State.REPRODUCES
    assert confirmation.text() == "reproduces on torch 2.15.0; not on thunder 0.2.7.dev0 (torch 2.11.0)"
    thunder = Confirmation(
        [
            answer_of(MAIN, "crash_compile:T", _row("equal", target="thunder:torchcompile"), None),
            answer_of(NEWEST, "crash_compile:T", _row("crash_compile", "crash_compile:T"), None),
        ]
    )
    assert thunder.state is State.FIXED  # Thunder fixed it; torch's version says nothing of Thunder's


def test_nothing_that_ran_is_unconfirmed_with_the_reasons():
    skipped = ReplayedHere("case.json", "", False, "skipped", note="target thunder:torchcompile is unavailable")
    confirmation = Confirmation([answer_of(NEWEST, "less_accurate", skipped, None)])
    assert confirmation.state is State.NOT_RUN
    assert confirmation.text() == "unconfirmed: torch 2.15.0: target thunder:torchcompile is unavailable"


def test_answers_are_kept_per_interpreter(tmp_path):
    cache = AnswerCache(tmp_path)
    cache.put(cache.key("abc", NEWEST, False), _row("equal"))
    cache.save()
    again = AnswerCache(tmp_path)
    assert again.get(again.key("abc", NEWEST, False)) == _row("equal")
    assert again.get(again.key("abc", MAIN, False)) is None and again.get(again.key("abc", NEWEST, True)) is None
    (tmp_path / "newest.json").write_text("{not json")
    assert AnswerCache(tmp_path).rows == {}  # unreadable: only the questions again
