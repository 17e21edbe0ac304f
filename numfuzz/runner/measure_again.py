"""Stored findings judged by today's rules: a finding an older numfuzz judged, or one stored unanalysed, is run again
here, and its outcome stored.

A corpus lists each case from what it stores (`corpus.rejudge`), and derives again what the stored
data gives. What it does not give (whether eager's output overflows too, a domain's edge, a cast
dropped upstream of the culprit, where an error was raised) only a run can measure. So before a
corpus is listed, each finding of a group that would be listed as new or stale, whose record an
older numfuzz's rules made (`Outcome.rules_version`), runs here again through the same judge and
analysis as a campaign's. So does a minimised accuracy finding stored without its analysis (a campaign that stops
takes the smallest case back at once, unanalysed): its culprit and cause would otherwise be its original's, which
minimising may have left behind (an atanh found as a NaN lost downstream, minimised to atanh alone, where the cause
is atanh's own kernel). The case file is rewritten atomically with today's outcome, the
old one kept beside it under `extra.measured_again`. A case whose target cannot run here is
left as it is, and says why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from numfuzz.corpus.case import Case, CaseError, recorded_outcome
from numfuzz.corpus.store import load_case, save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.facts import RULES_VERSION

Run = Callable[[Case], Outcome | str]  # an outcome, or why the case cannot run here
MOST = 30  # cases measured again per listing: a corpus of years of old findings is measured over several listings


@dataclass
class MeasuredAgain:
    measured: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line each: a case that could not run here
    seconds: float = 0.0


def outdated(path: Path) -> bool:
    """Was the case's outcome judged by rules older than today's, or is it a minimised accuracy finding stored unanalysed?"""
    try:
        case = load_case(path)
    except CaseError:
        return False
    if case.result is None:
        return False
    stored = recorded_outcome(case)
    unanalysed = isinstance(case.extra.get("minimize"), dict) and stored.verdict.is_accuracy and stored.analysis is None
    unanalysed = unanalysed and "measured_again" not in case.extra  # once: an analysis that gives nothing is not asked again at every listing
    return stored.rules_version < RULES_VERSION or unanalysed


def measure_again(paths: Sequence[Path], run: Run, most: int = MOST) -> MeasuredAgain:
    """Run each outdated case among `paths` (at most `most`) here and store today's outcome in its file."""
    done = MeasuredAgain()
    started = time.monotonic()
    for path in [p for p in dict.fromkeys(paths) if outdated(p)][:most]:
        case = load_case(path)
        got = run(case)
        if isinstance(got, str):
            done.skipped.append(f"{path}: {got}")
            continue
        previous = case.result
        case.result = got.to_json()
        case.extra["measured_again"] = {
            "rules_version": recorded_outcome(Case(case.graph, case.samples, case.run, result=previous)).rules_version,
            "result": previous,
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        save_case(case, path.parent, path.stem)
        done.measured.append(path)
    done.seconds = time.monotonic() - started
    return done
