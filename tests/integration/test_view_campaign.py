"""Quality: a planted target that reads an input at a storage offset from the base of its memory (as a kernel indexing
from the storage's start would) is found by a short campaign with the default shares, which draw views into larger
tensors; it is minimised with the offset kept, and its repro script rebuilds the view and fails. The same target with
the bug off gives nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT, campaign_seed

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.ir import Graph
from numfuzz.program.space import GenConfig

PLANTED = ROOT / "tests" / "offset_bug_target.py"
GRAPHS = 40


def _at_an_offset(graph: Graph) -> bool:
    return any(s.layout is not None and s.layout.offset for s in graph.inputs)


def _beyond_the_old_recipe(graph: Graph) -> bool:
    """An input the views share drew: over gaps, at an offset past the one element a stepped layout starts at, or 0-d."""
    return any(s.layout is not None and (s.layout.gap or s.layout.offset > 1 or not s.shape) for s in graph.inputs)


def test_a_target_that_reads_offset_inputs_from_their_base_is_found_minimised_and_reproduced(cli, tmp_path):
    seed = campaign_seed(GenConfig.default(), GRAPHS, lambda graphs: sum(map(_beyond_the_old_recipe, graphs)) >= 3)
    corpus = tmp_path / "corpus"
    campaign = ("fuzz", "--import", PLANTED, "--graphs", GRAPHS, "--seed", seed, "--workers", "1")
    result = cli(*campaign, "--target", "offset_dropper", "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(map(_at_an_offset, (c.graph for c in findings))), result.output  # only inputs at an offset show it
    assert any(_beyond_the_old_recipe(c.graph) for c in findings)
    minimised = [load_case(p) for p in iter_cases(corpus / "minimized")]
    assert minimised, result.output
    smallest = min(minimised, key=lambda c: len(c.graph.nodes))
    assert len(smallest.graph.nodes) == 1 and _at_an_offset(smallest.graph)
    assert {c.result["analysis"]["cause"] for c in minimised} == {"strided_input"}  # laid out plainly, the same values are fine
    listing = cli("corpus", corpus, "--import", PLANTED, "--no-confirm")
    assert "offset_dropper | strided input mishandled" in listing.output, listing.output

    path = next(p for p in iter_cases(corpus / "minimized") if load_case(p).content_hash() == smallest.content_hash())
    replay = cli("replay", path, "--import", PLANTED, "--json")
    assert replay.exit_code == 1 and json.loads(replay.output)["verdict"] in ("less_accurate", "nonfinite")
    assert cli("replay", path, "--target", "eager").exit_code == 0  # the same view on a correct target is no finding
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out)
    assert ran.returncode != 0 and "AssertionError: the compiled result is less accurate than eager" in ran.stderr, ran.stderr[-2000:]
    assert "laid_out(" in script.read_text()

    control = cli(*campaign, "--target", "offset_dropper_control", "--corpus", tmp_path / "control", "--no-minimize")
    assert control.exit_code == 0 and "0 findings" in control.output, control.output
