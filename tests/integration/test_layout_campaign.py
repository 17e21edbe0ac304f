"""Quality: a planted target that reads a permuted input's memory as if it were contiguous is found by a short campaign,
minimised with the layout kept, and its repro script rebuilds the layout and fails."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT, read_json

from numfuzz.corpus.store import iter_cases, load_case

PLANTED = ROOT / "tests" / "strided_target.py"
OPS = "add,mul,exp,tanh,sum,neg"


def test_a_target_that_misreads_permuted_inputs_is_found_and_minimised_with_the_layout(cli, tmp_path):
    corpus = tmp_path / "corpus"
    args = ["fuzz", "--import", PLANTED, "--target", "contiguous_reader", "--graphs", "60", "--ops", OPS, "--max-nodes", "4"]
    result = cli(*args, "--workers", "1", "--seams", "0", "--search", "0", "--samples", "4", "--corpus", corpus)
    assert result.exit_code == 0, result.output
    assert "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings, result.output
    assert all(any(s.layout is not None and s.layout.perm for s in c.graph.inputs) for c in findings)  # only permuted inputs show it
    minimised = [load_case(p) for p in iter_cases(corpus / "minimized")]
    assert minimised, result.output
    smallest = min(minimised, key=lambda c: len(c.graph.nodes))
    assert len(smallest.graph.nodes) == 1 and [s.layout.kinds() for s in smallest.graph.inputs if s.layout is not None] == [["permuted"]]
    assert {c.result["analysis"]["cause"] for c in minimised} == {"strided_input"}  # contiguous, the same values are fine
    listing = cli("corpus", corpus)
    assert "contiguous_reader | strided input mishandled" in listing.output and "in 1 group:" in listing.output, listing.output

    path = next(p for p in iter_cases(corpus / "minimized") if load_case(p).content_hash() == smallest.content_hash())
    replay = cli("replay", path, "--json")
    assert replay.exit_code == 1 and json.loads(replay.output)["verdict"] in ("less_accurate", "nonfinite")
    assert cli("replay", path, "--target", "eager").exit_code == 0  # the same layout on a correct target is no finding
    assert any("layout" in spec for spec in read_json(path)["graph"]["inputs"])  # stored in the file

    out = tmp_path / "repro"
    assert cli("repro", path, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out)
    assert ran.returncode != 0 and "AssertionError: the compiled result is less accurate than eager" in ran.stderr, ran.stderr[-2000:]
    assert "laid_out(" in script.read_text()
