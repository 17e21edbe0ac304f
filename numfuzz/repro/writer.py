"""Run a case once and write its repro script and issue text beside each other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from numfuzz.corpus.case import Case, stored_signature
from numfuzz.corpus.known import load_known, match_known
from numfuzz.corpus.store import write_atomic
from numfuzz.judge.bounds import Bounds, active_bounds
from numfuzz.judge.execute import Outcome
from numfuzz.judge.signature import signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.repro.issue import issue_markdown, snippet_source, title_of
from numfuzz.repro.script import script_source
from numfuzz.targets import Target


@dataclass
class ReproFiles:
    script: Path
    issue: Path
    outcome: Outcome


def write_repro(
    case: Case,
    target: Target,
    device: str,
    out_dir: Path,
    imports: Sequence[str] = (),
    outcome: Outcome | None = None,
    bounds: Bounds | None = None,
    newest: Sequence[str] = (),
) -> ReproFiles:
    """Run the case once (one compile, for its errors and trace) and write repro_<id>.py and issue_<id>.md.

    A given `outcome` (from an isolated run of a case that kills its process) skips the run. `bounds`:
    what the issue text judges the culprit's rounding error by (default: this process's). `newest`: where the case
    was confirmed on the newest versions, a line each, for the issue text's environment.
    """
    from numfuzz.runner.case_runner import run_case

    bounds = active_bounds() if bounds is None else bounds
    if outcome is None:
        outcome = run_case(case, target, device, want_trace=True, bounds=bounds)
    signature = stored_signature(case)
    script = script_source(case, target, device, imports, title_of(case, outcome, signature))
    stem = case.content_hash()[:12]
    out_dir = Path(out_dir)
    script_path, issue_path = out_dir / f"repro_{stem}.py", out_dir / f"issue_{stem}.md"
    write_atomic(script_path, script)
    snippet = snippet_source(case, target, device, imports, layouts=outcome.verdict is Verdict.METADATA)
    signed = signature or signature_of(case.target, outcome, case.run, case.graph)
    known = match_known(load_known(), signed, case.provenance)
    write_atomic(issue_path, issue_markdown(case, outcome, snippet, script, device, bounds, outcome.trace, known, newest))
    return ReproFiles(script_path, issue_path, outcome)
