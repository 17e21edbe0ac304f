"""Findings that kill their process are replayed and minimised in a separate worker process.

The planted crash_segv executor (examples/planted_crashes.py) segfaults on torch.tanh; the rest
of each graph runs on Thunder's torch executor, so each compile is cheap and the cold start of
a fresh worker after each crash dominates.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
from helpers import PLANTED_CRASHES, plain_config

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.case import Case, stored_signature
from numfuzz.corpus.store import iter_cases, load_case, save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.values import round_to
from numfuzz.run_spec import RunSpec
from numfuzz.workers.isolation import IsolatedRunner
from numfuzz.workers.worker import serve

pytestmark = pytest.mark.thunder  # the planted bugs are Thunder executors

X = TensorSpec((2, 3), "fp32")


def _case(nodes: list[Node], target: str = "thunder:crash_segv") -> Case:
    """A case on x: fp32[2, 3] whose output is the last node, with two fixed samples."""
    import numpy as np

    graph = Graph((X,), tuple(nodes), (len(nodes),))
    rows = [[round_to(np.linspace(-1.0, 1.0, 6).reshape(2, 3) * (k + 1), X)] for k in range(2)]
    return Case.from_tensors(graph, rows, RunSpec(target, imports=(PLANTED_CRASHES,)))


# exp(x) -> tanh -> mul by x: only the tanh crashes
CRASHING = [Node.make("exp", [0]), Node.make("tanh", [1]), Node.make("mul", [2, 0])]


def test_the_isolated_runner_turns_a_segfault_into_a_verdict_and_serves_the_next_case():
    crashing, fine = _case(CRASHING), _case([Node.make("exp", [0])])
    with IsolatedRunner("thunder:crash_segv", "cpu", [PLANTED_CRASHES], entry=serve) as runner:
        crashed = runner.evaluate(crashing.graph, crashing.tensors())
        after = runner.evaluate(fine.graph, fine.tensors())
    assert crashed.verdict is Verdict.SEGFAULT and "SIGSEGV" in crashed.detail
    assert after.verdict in (Verdict.EQUAL, Verdict.MORE_ACCURATE), after
    assert runner.crashes == 1 and runner.cases == 2


def test_cli_replays_minimises_and_writes_a_repro_for_a_segfault_without_dying(cli, tmp_path):
    case = _case(CRASHING)
    case.result = Outcome(Verdict.SEGFAULT, "worker killed by SIGSEGV").to_json()
    path = save_case(case, tmp_path / "findings")

    replayed = cli("replay", path, "--json", "--import", PLANTED_CRASHES)
    assert replayed.exit_code == 1, replayed.output
    assert json.loads(replayed.output)["verdict"] == "segfault"

    minimized = cli("minimize", path, "-o", tmp_path / "minimized", "--import", PLANTED_CRASHES)
    assert minimized.exit_code == 0, minimized.output
    (small,) = [load_case(p) for p in iter_cases(tmp_path / "minimized")]
    assert [n.op for n in small.graph.nodes] == ["tanh"]
    signature = stored_signature(small)
    assert (signature.symptom, signature.ops) == ("segfault", ("tanh",))
    assert small.extra["minimize"]["isolated"] and small.extra["original"]["hash"] == case.content_hash()

    written = cli("repro", iter_cases(tmp_path / "minimized")[0], "-o", tmp_path / "repro", "--import", PLANTED_CRASHES)
    assert written.exit_code == 0 and "verdict here: segfault" in written.output, written.output
    (script,) = (tmp_path / "repro").glob("repro_*.py")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGSEGV, proc.stderr[-2000:]


def test_the_isolated_flag_runs_any_case_in_a_worker(cli, tmp_path):
    case = _case([Node.make("exp", [0])], target="thunder:torch")
    path = save_case(case, tmp_path)
    result = cli("replay", path, "--json", "--isolated")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["verdict"] in ("equal", "more_accurate")


def test_a_campaign_minimises_its_segfault_findings_in_isolation(tmp_path):
    config = plain_config(
        targets=["thunder:crash_segv"],
        graphs=1,
        corpus=tmp_path,
        samples=4,
        gen=GenConfig(max_nodes=3, max_dim=4, ops=("tanh",)),
        workers=1,
        first_case_grace=0.0,
        imports=(PLANTED_CRASHES,),
        progress=False,
    )
    summary = run_campaign(config)

    assert summary.stats.verdicts["thunder:crash_segv"]["segfault"] == 1
    (found,) = [load_case(p) for p in summary.findings]
    (small,) = [load_case(p) for p in summary.minimized]
    assert [n.op for n in small.graph.nodes] == ["tanh"] and len(small.graph.inputs) == 1
    assert stored_signature(small).symptom == "segfault" and small.extra["minimize"]["isolated"]
    assert small.extra["original"]["hash"] == found.content_hash()
    assert summary.stats.minimized == 1 and summary.stats.minimize_failed == 0
    assert "Segmentation fault" in (summary.directory / "worker-0-isolated-0.log").read_text()
