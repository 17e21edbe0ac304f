"""Scalar arguments end to end: a planted target that keeps the first call's scalars is found only with scalars passed,
minimised to the scalar and its op, and its repro fails standalone; Inductor takes passed scalars and the default dynamic mode."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import torch
from helpers import ROOT, campaign_seed, cli_flags

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.scalars import parameters, passed
from numfuzz.program.space import GenConfig
from numfuzz.run_spec import RunSpec

PLANTED = ROOT / "examples" / "stale_scalar.py"
SMALL = ("--ops", "clamp_scalar,mul_scalar,exp,add", "--max-nodes", "3", "--samples", "16", "--workers", "1")


def _campaign(cli, corpus, share: str):
    result = cli("fuzz", "--import", PLANTED, "--target", "stale_scalar", "--graphs", 16, *SMALL, "--scalar-args-share", share, "--corpus", corpus)
    assert result.exit_code == 0, result.output
    return [load_case(p) for p in iter_cases(corpus / "findings")], [load_case(p) for p in iter_cases(corpus / "minimized")]


def test_a_stale_scalar_is_found_at_the_second_call_minimised_to_its_op_and_its_repro_fails(cli, tmp_path):
    findings, minimized = _campaign(cli, tmp_path / "corpus", "1")
    assert findings and all(f.result["at"] == "second_call" and f.result["analysis"]["cause"] == "stale_scalar" for f in findings)
    small = min(minimized, key=lambda c: len(c.graph.nodes))
    (node,) = small.graph.nodes  # the scalar's op alone, its scalar still passed, with a second value
    assert node.op in ("clamp_scalar", "mul_scalar") and any(second is not None for _, second in passed(node))
    stale = small.result["second_size"]
    assert stale["stale_scalars"] == [name for name, _ in parameters(small.graph)][:1] and len(stale["scalars"][0]) == 3
    out = tmp_path / "repro"
    path = tmp_path / "corpus" / "minimized" / f"{small.content_hash()[:16]}.json"
    assert cli("repro", path, "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    ran = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    )
    assert ran.returncode == 1 and "at the second call, the compiled result is less accurate" in ran.stderr, ran.stdout + ran.stderr
    assert "SCALARS2 = [" in script.read_text()


def test_with_every_scalar_a_literal_the_planted_target_is_right(cli, tmp_path):
    findings, _ = _campaign(cli, tmp_path / "corpus", "0")
    assert findings == []


def test_inductor_takes_passed_scalars_and_the_default_dynamic_mode_and_records_its_recompiles():
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import resolve

    graph = Graph((TensorSpec((8,), "bf16"),), (Node.make("clamp_scalar", [0], min=-1.7, max=0.7, passed=(("max", 0.3),)),), (1,))
    rows = [[torch.linspace(-2, 2, 8).bfloat16()], [torch.full((8,), 0.69921875).bfloat16()]]
    for mode in ("static", "automatic"):
        outcome = run_case(Case.from_tensors(graph, rows, RunSpec("inductor", device="cpu", dynamic=mode)), resolve("inductor"))
        assert not outcome.verdict.is_finding, outcome.detail
        note = outcome.second_size
        assert note["scalars"] == [["max_0", 0.7, 0.3]] and note["recompiled"] in (True, False)


def _batched(corpus) -> int:
    (folder,) = (corpus / "campaign").iterdir()
    rows = dict(line.split(" : ", 1) for line in (folder / "fuzzer_stats").read_text().splitlines())
    return int(next(v for k, v in rows.items() if k.strip() == "cases_batched"))


def test_cases_with_passed_scalars_compile_in_batches_and_the_stale_scalar_is_found_as_alone(cli, tmp_path):
    """Every case is called a second time with other scalars (each op takes a passed scalar); a batch calls its members so:
    on eager every second call is clean and judged in its batch; the stale scalar's are not, and each is found alone."""
    # cases of one batch key, each with its passed scalars: small values (a large one takes fewer samples, a key of its
    # own), every case of the program space drawn (no guided child) and none traced (a traced case runs alone)
    gen = replace(GenConfig(), ops=("clamp_scalar", "mul_scalar"), max_nodes=3, scalar_args=1.0)
    seed = campaign_seed(gen, 16, lambda graphs: all(sum(s.numel for s in g.inputs) <= 512 for g in graphs))
    ops = ("--ops", "clamp_scalar,mul_scalar", "--max-nodes", "3", "--samples", "16", "--workers", "1", "--no-minimize", "--seed", str(seed))
    ops += (*cli_flags(gen), "--trace-share", "0", "--guided-share", "0")
    found = {}
    for batch in ("1", "4"):
        result = cli("fuzz", "--import", PLANTED, "--target", "stale_scalar", "--graphs", 16, *ops, "--batch", batch, "--corpus", tmp_path / batch)
        assert result.exit_code == 0, result.output
        found[batch] = sorted(load_case(p).content_hash() for p in iter_cases(tmp_path / batch / "findings"))
    assert found["4"] and found["4"] == found["1"]
    result = cli("fuzz", "--target", "eager", "--graphs", 16, *ops, "--batch", "4", "--corpus", tmp_path / "eager")
    assert result.exit_code == 0, result.output
    assert _batched(tmp_path / "eager") == 16


def test_a_scalar_stale_only_in_the_backward_is_found_with_gradients_at_the_second_call_and_its_repro_fails(cli, tmp_path):
    """pytorch#194976's kind: the values are right and the gradients keep the first call's scalar. Gradients judged at
    the second call find it (the forward there is equal), the minimiser leaves the scalar's op alone with its value
    simplified, and the repro's own second call fails on the gradient."""
    corpus = tmp_path / "corpus"
    ops = ("--ops", "clamp_scalar,mul_scalar,exp,add", "--max-nodes", "3", "--samples", "16", "--workers", "1", "--scalar-args-share", "1")
    result = cli("fuzz", "--import", PLANTED, "--target", "stale_backward_scalar", "--graphs", 12, *ops, "--grad-share", "1", "--corpus", corpus)
    assert result.exit_code == 0, result.output
    findings = [load_case(p) for p in iter_cases(corpus / "findings")]
    backward = [f for f in findings if f.result["analysis"]["cause"] == "backward"]
    assert backward and all(f.result["at"] == "second_call" and f.result["outputs"][0]["verdict"] == "equal" for f in backward)
    minimized = [load_case(p) for p in iter_cases(corpus / "minimized") if load_case(p).result["analysis"]["cause"] == "backward"]
    small = min(minimized, key=lambda c: len(c.graph.nodes))
    (node,) = small.graph.nodes
    assert node.op in ("clamp_scalar", "mul_scalar") and any(second is not None for _, second in passed(node))
    simple = [v for k, v in node.attrs if k != "passed" and isinstance(v, float)]  # the first call's values, simplified
    assert simple and all(v.is_integer() or abs(v) == 0.5 for v in simple), node.attrs
    out = tmp_path / "repro"
    assert cli("repro", corpus / "minimized" / f"{small.content_hash()[:16]}.json", "--import", PLANTED, "-o", out).exit_code == 0
    (script,) = out.glob("repro_*.py")
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'examples'}", "PATH": "/usr/bin:/bin"}
    ran = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert ran.returncode == 1 and "at the second call, the compiled result is less accurate than eager on the gradient" in ran.stderr, ran.stdout + ran.stderr


def test_with_gradients_the_planted_backward_target_is_right_at_the_first_call(cli, tmp_path):
    result = cli(
        "fuzz",
        "--import",
        PLANTED,
        "--target",
        "stale_backward_scalar",
        "--graphs",
        8,
        *SMALL,
        "--scalar-args-share",
        "0",
        "--grad-share",
        "1",
        "--corpus",
        tmp_path,
    )
    assert result.exit_code == 0, result.output
    assert list(iter_cases(tmp_path / "findings")) == []


def test_gradients_at_a_second_call_of_a_program_with_integer_indices_are_judged():
    """An i64 input has an empty gradient at the second call too (its judged dtype is no float's)."""
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import resolve

    graph = Graph(
        (TensorSpec((4,), "fp32"), TensorSpec((3,), "i64")),
        (Node.make("index_select", [0, 1], dim=0), Node.make("mul_scalar", [2], value=0.5, passed=(("value", 1.7),))),
        (3,),
    )
    rows = [[torch.linspace(-1, 1, 4), torch.tensor([0, 3, 3])]]
    case = Case.from_tensors(graph, rows, RunSpec("eager", device="cpu", grad=True), [[torch.ones(3)]])
    outcome = run_case(case, resolve("eager"))
    assert outcome.verdict.value == "equal" and outcome.second_size["scalars"] == [["value_1", 0.5, 1.7]], outcome.detail
