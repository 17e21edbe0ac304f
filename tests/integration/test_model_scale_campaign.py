"""Model-sized values end to end: a planted split reduction wrong only past 4096 elements a row is found with large
shapes on, minimised while it keeps a model-sized row, and its repro fails standalone; with large shapes off it is not found.

With large shapes on, the campaign runs up to its first case with a long narrow reduction that the planted target gets
less accurate than eager judged alone (found with the campaign's own configuration), whichever stream drew it."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT, cli_campaign, until_shown

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.model_scale import is_large
from numfuzz.program.ops import infer_specs

PLANTED = ROOT / "examples" / "planted_large.py"
# a model-sized candidate is judged in 5-20 s on two cores: the budget lets minimising reach one op (it stops there)
SMALL = ("--ops", "sum,mean,exp", "--max-nodes", "2", "--samples", "8", "--workers", "1", "--minimize-timeout", "150", "--minimize-tail", "180")


def _long_reduction(graph) -> bool:
    """A bf16 or fp16 sum or mean along a dim longer than 4096: where the planted split reduction parts from eager."""
    specs = infer_specs(graph)
    for node in graph.nodes:
        spec, dims = specs[node.args[0]], dict(node.attrs).get("dim")
        if node.op in ("sum", "mean") and spec.dtype in ("bf16", "fp16"):
            dims = range(len(spec.shape)) if dims is None else [dims] if isinstance(dims, int) else dims
            if any(spec.shape[d] > 4096 for d in dims):
                return True
    return False


def _campaign(cli, monkeypatch, corpus, share: str, graphs: int | None = None):
    """The findings and minimised cases of a campaign of `graphs` graphs (None: up to the first that shows the bug)."""
    # blocks and models' windows make model-sized values too: --large-share alone decides; gradients of them cost more
    off = ("--blocks-share", "0", "--models-share", "0", "--grad-share", "0")
    args = ("--import", PLANTED, "--target", "split_reduction", *SMALL, "--large-share", share, *off, "--corpus", corpus)
    seed = 0
    if graphs is None:  # a long reduction is about one large graph in a hundred: the first seed with one in its first 8
        config = cli_campaign(cli, monkeypatch, *args, "--graphs", 1)
        seed, graphs = until_shown(config, "split_reduction", _long_reduction, "less_accurate", within=8, seeds=500)
    result = cli("fuzz", *args, "--seed", seed, "--graphs", graphs)
    assert result.exit_code == 0, result.output
    return [load_case(p) for p in iter_cases(corpus / "findings")], [load_case(p) for p in iter_cases(corpus / "minimized")]


def test_a_split_reduction_is_found_only_at_model_scale_and_minimised_keeping_its_size(cli, monkeypatch, tmp_path):
    findings, minimized = _campaign(cli, monkeypatch, tmp_path / "corpus", "1")
    assert findings and all(is_large(f.graph) for f in findings)
    small = min(minimized, key=lambda c: sum(s.numel for s in c.graph.inputs))
    assert [n.op for n in small.graph.nodes] in (["sum"], ["mean"]) and is_large(small.graph)  # the row stays past 4096
    assert small.extra["minimize"]["size_only"] is True
    path = tmp_path / "corpus" / "minimized" / f"{small.content_hash()[:16]}.json"
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    ran = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    )
    assert ran.returncode == 1 and "less accurate than eager" in ran.stderr, ran.stdout + ran.stderr


def test_with_large_shapes_off_the_split_reduction_is_never_seen(cli, monkeypatch, tmp_path):
    findings, _ = _campaign(cli, monkeypatch, tmp_path / "corpus", "0", 12)
    assert findings == []
