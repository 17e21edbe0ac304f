"""Model-sized values end to end: a planted split reduction wrong only past 4096 elements a row is found with large
shapes on, minimised while it keeps a model-sized row, and its repro fails standalone; with large shapes off it is not found."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.model_scale import is_large

PLANTED = ROOT / "examples" / "planted_large.py"
SMALL = ("--ops", "sum,mean,exp", "--max-nodes", "2", "--samples", "8", "--workers", "1", "--minimize-timeout", "45", "--minimize-tail", "60")


def _campaign(cli, corpus, share: str, graphs: int):
    # blocks and models' windows make model-sized values too: --large-share alone decides; gradients of them cost more
    off = ("--blocks-share", "0", "--models-share", "0", "--grad-share", "0")
    args = ("fuzz", "--import", PLANTED, "--target", "split_reduction", "--graphs", graphs, *SMALL, "--large-share", share, *off, "--corpus", corpus)
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return [load_case(p) for p in iter_cases(corpus / "findings")], [load_case(p) for p in iter_cases(corpus / "minimized")]


def test_a_split_reduction_is_found_only_at_model_scale_and_minimised_keeping_its_size(cli, tmp_path):
    findings, minimized = _campaign(cli, tmp_path / "corpus", "1", 6)
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


def test_with_large_shapes_off_the_split_reduction_is_never_seen(cli, tmp_path):
    findings, _ = _campaign(cli, tmp_path / "corpus", "0", 12)
    assert findings == []
