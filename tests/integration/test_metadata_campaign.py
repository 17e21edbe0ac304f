"""Quality: a planted output-layout bug (sigmoid's results laid out column-major, the values right) is found by a short
campaign as a metadata finding, grouped by the op and the kind of difference, minimised to the sigmoid alone, and its
repro fails standalone; the same target with the bug off gives nothing."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT, campaign_seed, cli_campaign, plain_config, through, until_shown

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.generator import GenConfig

PLANTED = ROOT / "tests" / "stride_bug_target.py"
CAMPAIGN = ("--graphs", "12", "--ops", "sigmoid,add,exp,transpose,sum", "--max-nodes", "3", "--workers", "1", "--search", "0", "--samples", "4")


def _sigmoid_out(graph) -> bool:
    """Whether a sigmoid's result is one of the graph's outputs."""
    return any(n.op == "sigmoid" and len(graph.inputs) + j in graph.outputs for j, n in enumerate(graph.nodes))


def test_a_planted_stride_bug_is_found_minimised_and_reproduced(cli, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus"
    args = ("--import", PLANTED, "--target", "stride_bug", *CAMPAIGN, "--corpus", corpus)
    # a seed whose 12 graphs hold a case that, judged alone, shows the layout at a sigmoid that is an output itself (through
    # a view after it, a transpose say, the layout shows at the view's output and is grouped by the view's op)
    config = cli_campaign(cli, monkeypatch, *args)
    seed, _ = until_shown(config, "stride_bug", _sigmoid_out, "metadata", within=12, seeds=100)
    result = cli("fuzz", *args, "--seed", seed)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    assert findings and all(c.result["verdict"] == "metadata" and any(n.op == "sigmoid" for n in c.graph.nodes) for c in findings)
    listing = cli("corpus", corpus)
    assert "stride_bug | metadata | sigmoid: strides (#) where eager gives (#), so a flat view fails" in listing.output, listing.output
    smallest = min(iter_cases(corpus / "minimized"), key=lambda p: len(load_case(p).graph.nodes))
    case = load_case(smallest)
    assert [n.op for n in case.graph.nodes] == ["sigmoid"] and case.result["verdict"] == "metadata"
    out = tmp_path / "repro"
    assert cli("repro", smallest, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=out, env=env)
    assert ran.returncode != 0 and "AssertionError: the compiled outputs are laid out unlike eager's: output 0 (sigmoid): strides" in ran.stderr, (
        ran.stdout[-2000:] + ran.stderr[-2000:]
    )


def test_the_control_target_gives_nothing(cli, tmp_path):
    corpus = tmp_path / "corpus"
    result = cli("fuzz", "--import", PLANTED, "--target", "stride_bug_control", *CAMPAIGN, "--corpus", corpus)
    assert result.exit_code == 0 and "0 numfuzz errors" in result.output, result.output
    assert "0 findings" in result.output and not list(iter_cases(corpus / "findings")), result.output


def test_a_batch_judges_metadata_as_its_cases_alone_do(tmp_path):
    """A batch runs its members on the very tensors eager ran on, so aliasing is judged there too; a metadata verdict
    from a batch is run again alone, and both campaigns find the same cases. Single sigmoids, transposes and
    unsqueezes: outputs that are views of inputs are among them."""
    gen = GenConfig(max_nodes=2, ops=("sigmoid", "transpose", "unsqueeze"))  # views of inputs among the outputs
    seed = campaign_seed(gen, 12, lambda graphs: 2 <= through("sigmoid", graphs) <= 6)  # sigmoids for the bug, the rest clean

    def campaign(name: str, batch: int):
        config = plain_config(targets=["stride_bug"], graphs=12, seed=seed, corpus=tmp_path / name, samples=4, gen=gen, workers=1, batch=batch,
                              first_case_grace=0.0, imports=(str(PLANTED),), minimize=False, progress=False)  # fmt: skip
        return run_campaign(config)

    alone, together = campaign("alone", 1), campaign("together", 4)
    assert alone.verdicts["stride_bug"]["metadata"] >= 1 and dict(together.verdicts["stride_bug"]) == dict(alone.verdicts["stride_bug"])
    assert sorted(p.name for p in together.findings) == sorted(p.name for p in alone.findings)
    # every clean case is taken from its batch: had the batch run on copies of eager's inputs, an output that is a view of
    # its input would have looked like a new tensor there, and its case would have been run again alone
    assert alone.stats.batched == 0 and together.stats.batched == alone.verdicts["stride_bug"]["equal"] >= 6
