"""Compile modes end to end: planted backends wrong only with symbolic sizes, only at a second size, or only under one option,
each found by a short campaign, minimised (keeping just the mode or option it needs) and reproduced by its repro script."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT, campaign_seed, cli_campaign, through

from numfuzz.corpus.store import iter_cases, load_case

PLANTED = ROOT / "examples" / "planted_compile_modes.py"
SMALL = ("--ops", "expm1,add,mul", "--max-nodes", "3", "--samples", "16", "--workers", "1")


def _campaign(cli, monkeypatch, corpus, target: str, graphs: int, *shares: str):
    """The campaign of the first seed whose graphs compute expm1 (the planted backends' op) in a quarter of them."""
    args = ("--import", PLANTED, "--target", target, "--graphs", graphs, *SMALL, *shares, "--corpus", corpus)
    seed = campaign_seed(cli_campaign(cli, monkeypatch, *args).gen, graphs, lambda drawn: through("expm1", drawn) >= graphs // 4)
    result = cli("fuzz", *args, "--seed", seed)
    assert result.exit_code == 0, result.output
    return [load_case(p) for p in iter_cases(corpus / "findings")], [load_case(p) for p in iter_cases(corpus / "minimized")]


def _repro_fails(cli, case, folder, tmp_path) -> str:
    path = folder / "minimized" / f"{case.content_hash()[:16]}.json"
    out = tmp_path / "repro"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    return script.read_text() + ran.stderr


def test_a_bug_only_with_symbolic_sizes_is_found_minimised_and_its_repro_fails_with_dynamic_true(cli, monkeypatch, tmp_path):
    from numfuzz.cli.setup import import_user_code
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import resolve

    corpus = tmp_path / "corpus"
    findings, minimized = _campaign(
        cli, monkeypatch, corpus, "symbolic_bug", 24, "--dynamic-share", "0.7", "--marked-share", "0.3", "--automatic-share", "0", "--config-share", "0"
    )
    assert findings and all(f.run.dynamic != "static" for f in findings)  # a static case never shows it
    dynamic = [m for m in minimized if m.run.dynamic == "dynamic"]
    assert dynamic, [m.run for m in minimized]
    small = min(dynamic, key=lambda m: m.result.get("at") == "second_size")  # one at the first size, where there is one
    assert [n.op for n in small.graph.nodes] == ["expm1"]
    assert small.extra["signature"]["mode"] == "dynamic"
    import_user_code(str(PLANTED))
    static = small.with_run(small.run.with_changes(dynamic="static", device="cpu"))
    assert not run_case(static, resolve("symbolic_bug")).verdict.is_finding  # the same case with static sizes is right
    text = _repro_fails(cli, small, corpus, tmp_path)
    assert "dynamic=True" in text and "less accurate" in text  # at the first size, or (where its samples there agree) the second


def test_a_bug_only_at_a_second_size_is_its_own_finding_and_its_repro_fails_there(cli, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus"
    findings, minimized = _campaign(
        cli, monkeypatch, corpus, "resize_bug", 16, "--dynamic-share", "0.5", "--marked-share", "0.5", "--automatic-share", "0", "--config-share", "0"
    )
    assert findings and all(f.result.get("at") == "second_size" and f.second is not None for f in findings)
    assert all(f.result["second_size"]["recompiled"] is False for f in findings)  # the same compile ran at both sizes
    small = min(minimized, key=lambda c: len(c.graph.nodes))
    assert small.extra["signature"]["at"] == "second_size" and small.second is not None and [n.op for n in small.graph.nodes] == ["expm1"]
    replay = cli("replay", corpus / "minimized" / f"{small.content_hash()[:16]}.json", "--import", PLANTED)
    assert replay.exit_code == 1 and "verdict: less_accurate at the second size" in replay.output and "no recompile" in replay.output
    text = _repro_fails(cli, small, corpus, tmp_path)
    assert "second size: the same compiled program" in text and "at the second size, the compiled result is less accurate" in text


def test_a_bug_only_under_one_option_keeps_that_option_alone(cli, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus"
    findings, minimized = _campaign(cli, monkeypatch, corpus, "option_bug", 16, "--dynamic-share", "0", "--marked-share", "0", "--config-share", "1")
    assert findings and all(f.run.options.get("aggressive_fusion") is True and len(f.run.compiler_options) >= 2 for f in findings)
    assert minimized and all(m.run.compiler_options == (("aggressive_fusion", True),) for m in minimized)
    assert minimized[0].extra["signature"]["mode"] == "aggressive_fusion=1"
    text = _repro_fails(cli, minimized[0], corpus, tmp_path)
    assert "option_backend({'aggressive_fusion': True})" in text


def test_a_marked_dim_the_program_specialises_is_numfuzz_s_own_error_not_a_crash():
    """chunk(x, 2) of a size-2 dim under mark_dynamic: Dynamo raises ConstraintViolationError by design."""
    import torch

    from numfuzz.corpus.case import Case
    from numfuzz.judge.execute import OWN_MARK
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.program.ir import Graph, Node, TensorSpec
    from numfuzz.run_spec import RunSpec
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import resolve

    graph = Graph((TensorSpec((2, 3), "fp32"),), (Node.make("chunk", [0], chunks=2, dim=0, index=0),), (1,))
    case = Case.from_tensors(graph, [[torch.randn(2, 3)]], RunSpec("inductor", "cpu", dynamic="marked", marked=((0, 0),)))
    outcome = run_case(case, resolve("inductor"))
    assert outcome.verdict is Verdict.INVALID and outcome.detail.startswith(OWN_MARK), outcome.detail
    plain = run_case(Case.from_tensors(graph, [[torch.randn(2, 3)]], RunSpec("inductor", "cpu")), resolve("inductor"))
    assert plain.verdict is Verdict.EQUAL  # the program itself compiles


def test_cases_in_the_default_mode_compile_in_batches_on_inductor(cli, tmp_path, monkeypatch):
    """torch.compile's default (`automatic`): a batch of a block's cases compiles static, is called at every member's
    second size and recompiles, as each case alone would. Symbolic sizes (dynamic, marked) run alone."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    shares = ("--dynamic-share", "0", "--marked-share", "0", "--automatic-share", "1", "--config-share", "0", "--no-minimize")
    small = ("--ops", "exp,add,mul", "--max-nodes", "3", "--samples", "8", "--workers", "1", "--seed", "3")
    result = cli("fuzz", "--target", "inductor", "--graphs", 8, *small, *shares, "--corpus", tmp_path / "corpus")
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "corpus" / "campaign").iterdir()
    rows = {k.strip(): v.strip() for k, v in (line.split(" : ", 1) for line in (folder / "fuzzer_stats").read_text().splitlines())}
    assert int(rows["cases_batched"]) >= 4


def test_symbolic_cases_compile_in_batches_and_find_what_they_find_alone(tmp_path):
    """Symbolic sizes batch with duck sizing off: no member shares a symbol with another, so a member's second size fails
    no guard another set and the batch is not recompiled, and the second-size bug (exact on any recompile) still shows."""
    from helpers import campaign_seed, plain_config, through

    from numfuzz.campaign.loop import run_campaign
    from numfuzz.program.generator import GenConfig
    from numfuzz.run_spec import RunMix

    mix = RunMix(dynamic=0.5, marked=0.5, automatic=0.0, config_share=0.0)
    gen = GenConfig(max_nodes=3, max_dim=6, ops=("expm1", "add", "mul"))
    seed = campaign_seed(gen, 16, lambda graphs: through("expm1", graphs) >= 4)  # the second-size bug is expm1's

    def campaign(folder, batch):
        config = plain_config(
            targets=("resize_bug",), graphs=16, seed=seed, corpus=tmp_path / folder, samples=16, gen=gen, workers=1, batch=batch,
            first_case_grace=0.0, imports=(str(PLANTED),), minimize=False, progress=False, mix=mix,
        )  # fmt: skip
        return run_campaign(config)

    alone, together = campaign("alone", 1), campaign("together", 4)
    assert sorted(p.name for p in together.findings) == sorted(p.name for p in alone.findings) and alone.findings
    assert {t: dict(c) for t, c in together.verdicts.items()} == {t: dict(c) for t, c in alone.verdicts.items()}
    assert alone.stats.batched == 0 and together.stats.batched >= 2  # clean symbolic cases came from batches (one that recompiled ran alone)
