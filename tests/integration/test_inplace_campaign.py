"""Quality: in-place ops and writes through views are drawn, and a planted compile that drops a write through a view
is found by a short campaign, minimised to the write alone, and its repro fails standalone."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from numfuzz.corpus.store import iter_cases, load_case

PLANTED = ROOT / "tests" / "view_write_target.py"


def test_a_dropped_write_through_a_view_is_found_and_minimised_to_the_write(cli, tmp_path):
    corpus = tmp_path / "corpus"
    args = ["fuzz", "--import", PLANTED, "--target", "view_write_dropped", "--graphs", "16", "--ops", "slice_write,add_inplace,exp,add"]
    result = cli(*args, "--max-nodes", "3", "--workers", "1", "--search", "0", "--samples", "4", "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(any(n.op == "slice_write" for n in c.graph.nodes) for c in findings)
    paths = list(iter_cases(corpus / "minimized"))
    smallest = min(paths, key=lambda p: len(load_case(p).graph.nodes))
    assert [n.op for n in load_case(smallest).graph.nodes] == ["slice_write"]
    assert cli("replay", smallest, "--target", "inductor").exit_code == 0  # Inductor writes it
    out = tmp_path / "repro"
    assert cli("repro", smallest, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out, env=env)
    assert ran.returncode != 0 and "less accurate than eager" in ran.stderr, ran.stdout[-2000:] + ran.stderr[-2000:]
