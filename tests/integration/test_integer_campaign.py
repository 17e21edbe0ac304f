"""Quality: a planted integer bug (integer sums of 16 elements or more one too large, as a vector loop whose tail
counts an element twice would) is found by a short campaign with the default shares, which draw integer programs;
it is judged exactly (exact_mismatch), minimised to the sum alone, and its repro fails standalone. The same target
with the bug off gives nothing."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT, campaign_seed

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.dtypes import is_integer
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.program.space import GenConfig

PLANTED = ROOT / "tests" / "int_sum_bug_target.py"
GRAPHS = 40
SUMS = ("db.sum", "db.nansum")


def _integer_sums(graph: Graph) -> int:
    """Sums the plant makes wrong: over an integer or bool value of 16 elements or more."""
    specs = infer_specs(graph)
    return sum(n.op in SUMS and is_integer(specs[n.args[0]].dtype) and specs[n.args[0]].numel >= 16 for n in graph.nodes)


def test_a_planted_integer_sum_bug_is_found_minimised_and_reproduced(cli, tmp_path):
    seed = campaign_seed(GenConfig.default(), GRAPHS, lambda graphs: sum(map(_integer_sums, graphs)) >= 1)
    corpus = tmp_path / "corpus"
    campaign = ("fuzz", "--import", PLANTED, "--graphs", GRAPHS, "--seed", seed, "--workers", "1")
    result = cli(*campaign, "--target", "int_sum_bug", "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    # a float program can show it too, where an op sums a bool internally (masked.var's count, `(x >= s).sum()`)
    assert any(Outcome.from_json(c.result).verdict is Verdict.EXACT_MISMATCH and _integer_sums(c.graph) for c in findings), result.output
    exact = [c for c in map(load_case, iter_cases(corpus / "minimized")) if Outcome.from_json(c.result).verdict is Verdict.EXACT_MISMATCH]
    smallest = min(exact, key=lambda c: len(c.graph.nodes))
    assert [n.op for n in smallest.graph.nodes] in ([s] for s in SUMS), smallest.graph.nodes
    outcome = Outcome.from_json(smallest.result)
    assert outcome.verdict is Verdict.EXACT_MISMATCH and "values differ from eager's" in outcome.detail
    path = next(p for p in iter_cases(corpus / "minimized") if load_case(p).content_hash() == smallest.content_hash())
    assert cli("replay", path, "--target", "eager").exit_code == 0  # the same program on a correct target is no finding
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out, env=env)
    assert ran.returncode != 0 and "AssertionError" in ran.stderr, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "elements differ from eager's" in ran.stdout

    control = cli(*campaign, "--target", "int_sum_bug_control", "--corpus", tmp_path / "control", "--no-minimize")
    assert control.exit_code == 0 and "0 findings" in control.output, control.output
