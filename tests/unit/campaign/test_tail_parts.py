"""The minimisation tail's small parts: candidate time limits and the progress board. No workers."""

from __future__ import annotations

import dataclasses

from numfuzz.campaign.minimize_board import MinimizeBoard
from numfuzz.workers.candidate_clock import CandidateClock
from numfuzz.workers.defaults import FIRST_CASE_GRACE_S, HANG_FACTOR, HANG_FLOOR_S
from numfuzz.workers.messages import Progress


def test_a_candidate_gets_a_few_times_the_median_run_floored_and_never_past_the_case_timeout():
    clock = CandidateClock(ceiling=20.0)
    assert clock.timeout() == 20.0  # nothing measured: the campaign's own limit
    assert clock.timeout(fresh=True) == 20.0 + FIRST_CASE_GRACE_S
    for seconds in (0.5, 0.7, 9.0):
        clock.observe(seconds, fresh=False)
    assert clock.timeout() == HANG_FLOOR_S  # 4 x 0.7 s is under the floor
    clock.observe(3.0, fresh=True)
    assert clock.timeout(fresh=True) == HANG_FACTOR * 3.0
    assert clock.fresh_extra() == HANG_FACTOR * 3.0 - HANG_FLOOR_S
    for _ in range(10):
        clock.observe(30.0, fresh=False)
    assert clock.timeout() == 20.0
    again = CandidateClock.from_json(clock.to_json(), 20.0)
    assert again.timeout() == clock.timeout() and again.timeout(True) == clock.timeout(True)


def test_the_board_names_each_minimisation_its_size_and_time_left():
    board = MinimizeBoard()
    board.start("6e3a285c9e1f352d", "timeout", deadline=1000.0)
    assert board.line("6e3a285c9e1f352d", now=990.0) == "minimising 6e3a285c (timeout): starting, 10 s left"
    info = Progress("6e3a285c9e1f352d", "shrink", candidates=3, nodes=2, from_nodes=9, verdict="timeout", kept=True)
    assert board.update(info) == 3 and board.update(dataclasses.replace(info, candidates=5)) == 2
    assert board.line("6e3a285c9e1f352d", now=900.0) == "minimising 6e3a285c (timeout): 5 candidates (last: timeout, kept), 2 of 9 ops, 100 s left"
    assert board.text(now=900.0) == "minimising 6e3a285c timeout #5 2/9 ops 100s left"
    board.shorten("6e3a285c9e1f352d", 950.0)
    assert board.text(now=900.0).endswith("50s left")
    board.finish("6e3a285c9e1f352d")
    assert board.text() == "" and board.update(info) == 0
