"""Gradients end to end: a backward-only bug planted in a torch.compile backend is found, minimised to its op, and its repro fails standalone."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT, cli_campaign, until_shown

from numfuzz.address import COMPILE_BLOCK
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs

PLANTED_BACKWARD = ROOT / "examples" / "planted_backward.py"


def test_a_planted_backward_bug_is_found_minimised_to_its_op_and_its_repro_fails(cli, tmp_path):
    corpus = tmp_path / "corpus"
    args = ["fuzz", "--grad", "--import", PLANTED_BACKWARD, "--target", "backward_bug", "--graphs", "24", "--ops", "tanh,add,mul,exp,sin"]
    # graphs of --ops only (a block, a model's window or a model-sized value brings others); a float64 program judges no gradients
    only_these_ops = ("--blocks-share", "0", "--models-share", "0", "--large-share", "0", "--fp64-share", "0")
    result = cli(*args, "--max-nodes", "4", "--workers", "1", *only_these_ops, "--corpus", corpus)
    assert result.exit_code == 0, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(f.run.grad and len(f.grads) == len(f.samples) for f in findings)
    assert {f.result["analysis"]["cause"] for f in findings} == {"backward"}
    # one group per dtype the bug showed in, each minimised to tanh (behind the x * x it was drawn with, at most)
    minimized = [load_case(p) for p in iter_cases(corpus / "minimized")]
    assert minimized and all("tanh" in [n.op for n in m.graph.nodes] and len(m.graph.nodes) <= 2 and m.run.grad for m in minimized)
    small = min(minimized, key=lambda m: len(m.graph.nodes))
    assert small.result["analysis"]["gradient_of"] == 0 and small.result["analysis"]["op"] == "tanh"

    replay = cli("replay", corpus / "minimized" / f"{small.content_hash()[:16]}.json")
    assert replay.exit_code == 1 and "dx0" in replay.output and "cause: backward (the gradient of input x0)" in replay.output

    out = tmp_path / "repro"
    assert cli("repro", corpus / "minimized" / f"{small.content_hash()[:16]}.json", "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    ran = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert ran.returncode == 1 and "less accurate than eager on the gradient of input x0" in ran.stderr


def test_a_case_whose_upstream_gradients_do_not_match_its_outputs_is_one_line_and_exit_2(cli, tmp_path):
    from numfuzz.corpus.make import make_case
    from numfuzz.corpus.store import save_case
    from numfuzz.run_spec import RunSpec

    path = save_case(make_case(3, RunSpec("eager", "cpu", samples=2, grad=True)), tmp_path)
    data = json.loads(path.read_text())
    data["grads"] = data["grads"][:1]
    path.write_text(json.dumps(data))
    result = cli("replay", path)
    assert result.exit_code == 2 and "upstream gradients do not match the case" in result.output
    assert len(result.output.strip().splitlines()) == 1


def _tanh_wider_than_bf16(graph: Graph) -> bool:
    specs = infer_specs(graph)
    return any(n.op == "tanh" and specs[len(graph.inputs) + j].dtype in ("fp32", "fp16") for j, n in enumerate(graph.nodes))


def test_a_default_campaign_without_grad_finds_and_minimises_a_planted_backward_bug(cli, monkeypatch, tmp_path):
    """--grad-share: a campaign on its defaults judges some blocks' gradients, and finds a backward-only bug there."""
    corpus = tmp_path / "corpus"
    args = ("--import", PLANTED_BACKWARD, "--target", "backward_bug", "--ops", "tanh,add,mul,exp,sin", "--max-nodes", "4", "--workers", "1")
    # the defaults but float64 programs, which judge no gradients: every case of a block that draws them judges them
    args += ("--fp64-share", "0", "--corpus", corpus)
    # a seed whose first block (8 cases) holds a case that, judged alone, shows the bug: its block draws gradients (the
    # forward is right), and its tanh is wider than bf16 (in bf16 the bug's rounding changes nothing) and not saturated
    config = cli_campaign(cli, monkeypatch, *args, "--graphs", 1)
    seed, _ = until_shown(config, "backward_bug", _tanh_wider_than_bf16, "less_accurate", within=COMPILE_BLOCK, seeds=300)
    result = cli("fuzz", *args, "--graphs", COMPILE_BLOCK, "--seed", seed)
    assert result.exit_code == 0, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(f.run.grad for f in findings) and {f.result["analysis"]["cause"] for f in findings} == {"backward"}
    minimized = [load_case(p) for p in iter_cases(corpus / "minimized")]  # one group per dtype the bug showed in
    assert minimized and all("tanh" in [n.op for n in m.graph.nodes] and len(m.graph.nodes) <= 2 and m.run.grad for m in minimized)
    stats = next((corpus / "campaign").glob("*/fuzzer_stats")).read_text()
    assert "cases_with_gradients     : 8" in stats


def test_cases_with_gradients_compile_in_batches_and_give_the_verdicts_and_findings_they_give_alone(tmp_path):
    """A batch's one compiled forward and backward gives each member its own gradients: the same verdicts, the same findings."""
    from helpers import campaign_seed, plain_config, through

    from numfuzz.campaign.loop import run_campaign
    from numfuzz.program.generator import GenConfig

    gen = GenConfig(max_nodes=4, max_dim=4, ops=("tanh", "add", "mul", "exp", "sin"))
    seed = campaign_seed(gen, 24, lambda graphs: through("tanh", graphs) >= 4)  # the planted bug is tanh's backward

    def campaign(name: str, batch: int):
        return run_campaign(
            plain_config(
                targets=("backward_bug",), graphs=24, seed=seed, corpus=tmp_path / name, samples=8, grad=True, batch=batch, workers=1,
                gen=gen, imports=(str(PLANTED_BACKWARD),),
                first_case_grace=0.0, minimize=False, progress=False,
            )
        )  # fmt: skip

    alone, together = campaign("alone", 1), campaign("together", 4)
    assert together.graphs_done == alone.graphs_done == 24
    assert {t: dict(c) for t, c in together.verdicts.items()} == {t: dict(c) for t, c in alone.verdicts.items()}
    assert sorted(p.name for p in together.findings) == sorted(p.name for p in alone.findings) and together.findings
    assert alone.stats.batched == 0 and together.stats.batched >= 12  # most clean cases came from a batch
