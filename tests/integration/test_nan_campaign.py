"""Quality: a planted NaN bug (a mean over an empty dim gives 0 where eager and float64 give NaN) is found by a short
campaign as a non-finite class lost, minimised to the mean alone, and its repro fails standalone; the same target
with the bug off gives nothing.

The campaign draws every graph with an empty first input (`--empty-share 1`) over a few ops: by default 2% of graphs
have an empty dim, and about 1 in 3000 default graphs takes a mean over it, too few for a test to reach."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict

PLANTED = ROOT / "tests" / "nan_bug_target.py"
CAMPAIGN = ("--ops", "mean,exp,add,sum", "--empty-share", "1", "--max-nodes", "3", "--workers", "1", "--search", "0", "--samples", "4")
CAMPAIGN += ("--no-grad", "--grad-share", "0", "--no-confirm")


def test_a_planted_nan_bug_is_found_minimised_and_reproduced(cli, tmp_path):
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--import", PLANTED, "--target", "nan_bug", "--graphs", "24", *CAMPAIGN, "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all("mean" in {n.op for n in c.graph.nodes} for c in findings)
    assert all(Outcome.from_json(c.result).verdict is Verdict.NONFINITE_CLASS for c in findings)
    path = min(iter_cases(corpus / "minimized"), key=lambda p: len(load_case(p).graph.nodes))
    smallest = load_case(path)
    assert [n.op for n in smallest.graph.nodes] == ["mean"], smallest.graph.nodes
    outcome = Outcome.from_json(smallest.result)
    assert outcome.verdict is Verdict.NONFINITE_CLASS and outcome.analysis.cause == "nonfinite_dropped"
    assert "NaN -> finite" in outcome.detail and "NaN/inf lost" in cli("corpus", corpus, "--no-confirm").output
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out, env=env)
    assert ran.returncode != 0 and "AssertionError" in ran.stderr, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "agree on NaN or inf and the compiled result does not" in ran.stdout


def test_the_control_target_gives_nothing(cli, tmp_path):
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--import", PLANTED, "--target", "nan_bug_control", "--graphs", "24", *CAMPAIGN, "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    assert "0 findings" in result.output and not list(iter_cases(corpus / "findings")), result.output
