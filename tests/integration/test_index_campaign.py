"""Quality: a planted index bug (argmax, argmin and max with a dim one place off on inputs that are not contiguous) is
found by a short campaign through the values the indices select, minimised to an index op over a transposed value or a
strided input, and its repro fails standalone; the same target with the bug off gives nothing."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from numfuzz.corpus.store import iter_cases, load_case

PLANTED = ROOT / "tests" / "index_bug_target.py"
INDEX_OPS = {"argmax", "argmin", "max_dim"}
CAMPAIGN = ("--ops", "argmax,argmin,max_dim,transpose,exp,add", "--max-nodes", "3", "--workers", "1", "--search", "0", "--samples", "4")
CAMPAIGN += ("--layouts-share", "0.5", "--no-grad", "--grad-share", "0")


def test_a_planted_index_bug_is_found_minimised_and_reproduced(cli, tmp_path):
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--import", PLANTED, "--target", "index_bug", "--graphs", "24", *CAMPAIGN, "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(INDEX_OPS & {n.op for n in c.graph.nodes} for c in findings)
    path = min(iter_cases(corpus / "minimized"), key=lambda p: len(load_case(p).graph.nodes))
    smallest = load_case(path)
    ops = [n.op for n in smallest.graph.nodes]
    strided = any(spec.layout is not None for spec in smallest.graph.inputs)
    assert ops[-1] in INDEX_OPS and len(ops) <= 2 and (strided or "transpose" in ops), (ops, smallest.graph.inputs)
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out, env=env)
    assert ran.returncode != 0 and "AssertionError" in ran.stderr, ran.stdout[-2000:] + ran.stderr[-2000:]


def test_the_control_target_gives_nothing(cli, tmp_path):
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--import", PLANTED, "--target", "index_bug_control", "--graphs", "24", *CAMPAIGN, "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    assert "0 findings" in result.output and not list(iter_cases(corpus / "findings")), result.output
