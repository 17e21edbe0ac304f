import pytest
import torch
from helpers import FINDINGS, FIRST_FIFTY_OPS, SEEDS, plain_config

from numfuzz.campaign.loop import run_campaign
from numfuzz.corpus.store import load_case
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig
from numfuzz.program.ops import infer_specs
from numfuzz.reduce.minimize import minimize_case
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import TargetError, resolve
from numfuzz.targets.options import parse_options


def test_unknown_family_is_an_error():
    with pytest.raises(TargetError, match="unknown target"):
        resolve("tvm")


@pytest.mark.thunder
def test_unknown_thunder_executor_is_unavailable_with_a_reason():
    ok, why = resolve("thunder:no_such_executor").available()
    assert not ok and "no_such_executor" in why


def test_options_parse():
    assert parse_options("nv_enable_linear=1,mode=max-autotune,x=2.5") == {"nv_enable_linear": True, "mode": "max-autotune", "x": 2.5}
    with pytest.raises(TargetError):
        parse_options("novalue")


@pytest.mark.thunder
@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is present: nvFuser may be available")
def test_nvfuser_says_why_it_is_unavailable_without_cuda():
    ok, why = resolve("thunder:nvfuser").available()
    assert not ok and "CUDA" in why


def test_every_target_works_or_says_why():
    """On any supported torch, with or without thunder: available, or unavailable with a reason; never a traceback."""
    from numfuzz.targets import families

    for family in families():
        for spec in family.examples + (f"{family.prefix}:bogus_option=1" if family.prefix == "inductor" else family.prefix,):
            ok, why = resolve(spec).available()
            assert ok or (why and "\n" not in why), (spec, why)
    ok, why = resolve("inductor:no_such_option=1").available()
    assert not ok and "no option 'no_such_option'" in why


@pytest.mark.skipif(not torch.cuda.is_available(), reason="nvFuser needs CUDA")
def test_nvfuser_runs_a_seed_case():
    target = resolve("thunder:nvfuser")
    ok, why = target.available()
    if not ok:
        pytest.skip(why)
    outcome = run_case(load_case(SEEDS / "silu-mul-bf16.json"), target, "cuda")
    assert outcome.verdict in (Verdict.MORE_ACCURATE, Verdict.EQUAL)


@pytest.mark.thunder
def test_thunder_torch_executor_finds_nothing():
    # thunder with the torch executor calls the same kernels as eager: bit-identical, over the op table's
    # first 50 ops (some of the later ones Thunder decomposes itself, or cannot trace)
    gen = GenConfig(ops=FIRST_FIFTY_OPS)
    summary = run_campaign(plain_config(targets=[resolve("thunder:torch")], graphs=36, seed=3, samples=4, gen=gen))
    counts = summary.verdicts["thunder:torch"]
    assert sum(counts[v.value] for v in Verdict if v.is_finding) == 0, counts
    assert counts["equal"] > 20


@pytest.mark.parametrize(
    "spec", [pytest.param("thunder:torchcompile", marks=pytest.mark.thunder), "inductor", pytest.param("thunderfx", marks=pytest.mark.thunder)]
)
def test_compilers_run_a_case_and_keep_the_verdict_benign(spec):
    outcome = run_case(load_case(SEEDS / "silu-mul-bf16.json"), resolve(spec), "cpu", want_trace=True)
    assert outcome.verdict in (Verdict.MORE_ACCURATE, Verdict.EQUAL), outcome.detail
    if spec.startswith("thunder:"):
        assert "def computation" in outcome.trace


def test_an_inductor_campaign_runs_in_workers(tmp_path):
    """The campaign path on whatever torch is installed, Thunder or not."""
    config = plain_config(targets=["inductor"], graphs=4, seed=1, samples=8, corpus=tmp_path, workers=1, progress=False, minimize=False)
    summary = run_campaign(config)
    assert summary.graphs_done == 4 and summary.stats.errors == 0, summary.table()
    assert (tmp_path / "campaign").is_dir()


def test_an_inductor_finding_keeps_one_full_vector_when_minimised():
    """Inductor's vectorised erf differs from its scalar tail: a 2-element case would not reproduce on every CPU."""
    case = load_case(FINDINGS / "inductor-erf-fp32-absolute-error.json")
    result = minimize_case(case, resolve("inductor"), "cpu", max_compiles=40)
    assert result.reproduced
    (out,) = result.case.graph.outputs
    assert infer_specs(result.case.graph)[out].numel >= 16  # 64 bytes of fp32
