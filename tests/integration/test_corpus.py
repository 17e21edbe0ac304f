"""Corpus files: committed seeds replay with their recorded verdicts; bad files fail cleanly."""

import json
import re

import pytest
from helpers import FINDINGS, ROOT, SEEDS

from numfuzz.corpus.case import CaseError, recorded_signature
from numfuzz.corpus.make import make_case
from numfuzz.corpus.regression import reproduces, statement, upstream
from numfuzz.corpus.store import load_case, save_case
from numfuzz.environment import provenance
from numfuzz.judge.signature import signature_of
from numfuzz.judge.verdicts import Verdict, parse_verdict
from numfuzz.program.ir import Graph, Node
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

SEED_FILES = sorted(SEEDS.glob("*.json"))
FINDING_FILES = sorted(FINDINGS.glob("*.json"))  # real findings kept as regression cases
UPSTREAM_FILES = sorted((ROOT / "corpus" / "upstream").glob("*.json"))  # upstream reports written as cases


def _target_or_skip(spec: str):
    target = resolve(spec)
    ok, why = target.available()
    if not ok:
        pytest.skip(f"{spec} is unavailable here: {why}")
    return target


def test_seed_corpus_is_complete():
    assert {p.stem for p in SEED_FILES} == {"qwen2-mlp-bf16", "silu-mul-bf16", "rope-fp32", "rope-bf16"}
    assert FINDING_FILES


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.stem)
def test_seed_replays_with_recorded_verdict(path):
    case = load_case(path)
    outcome = run_case(case, _target_or_skip(case.target), "cpu")
    assert outcome.verdict.value == case.result["verdict"]


@pytest.mark.parametrize("path", FINDING_FILES, ids=lambda p: p.stem)
def test_committed_finding_reproduces_where_it_states(path):
    """Each committed finding states where it reproduces; the statement must hold on this machine."""
    case = load_case(path)
    stated = statement(case)
    assert stated is not None, f"{path.name} states no versions where it reproduces"
    target = _target_or_skip(case.target)
    here = provenance("cpu")
    expected = stated.holds_here(here)
    if expected is None:
        pytest.skip(f"{path.name} was checked on {'/'.join(stated.isa)}; this CPU is {here['isa']}")
    outcome = run_case(case, target, "cpu")
    crash = "analysis" not in case.result  # a crash has none: it reproduces only with its own message
    same_crash = crash and recorded_signature(case).fingerprint == signature_of(case.target, outcome, case.run).fingerprint
    seen = outcome.verdict.is_finding and (same_crash or not crash)
    assert seen == expected, f"{path.name} on torch {here['torch']}: {outcome.verdict.value} {outcome.detail[:120]}, stated: {stated.text()}"
    if expected:
        assert outcome.verdict.value == case.result["verdict"]
        if not crash:
            assert outcome.analysis.cause == case.result["analysis"]["cause"]


@pytest.mark.parametrize("path", UPSTREAM_FILES, ids=lambda p: p.stem)
def test_upstream_case_replays_as_its_file_states(path):
    """Each upstream report gets its recorded verdict where its file says (a finding, or what numfuzz judges it), and not elsewhere."""
    case = load_case(path)
    stated, source = statement(case), upstream(case)
    assert stated is not None and source is not None, f"{path.name} names no upstream issue or states nowhere it reproduces"
    if stated.device and not "cpu".startswith(stated.device):
        pytest.skip(f"{path.name} ({source.issue}) needs {stated.device}")
    target = _target_or_skip(case.target)
    here = provenance("cpu")
    expected = stated.holds_here(here)
    if expected is None:
        pytest.skip(f"{path.name} was checked on {'/'.join(stated.isa)}; this CPU is {here['isa']}")
    recorded = parse_verdict(case.result["verdict"])
    outcome = run_case(case, target, "cpu")
    assert reproduces(recorded, outcome.verdict) == expected, (
        f"{source.issue} on torch {here['torch']}: {outcome.verdict.value}, recorded {recorded.value}, stated: {stated.text()}"
    )
    if expected and recorded.is_finding:
        assert outcome.verdict is recorded
        if "analysis" in case.result:  # an accuracy finding's cause (an unchecked one has none)
            assert outcome.analysis.cause == case.result["analysis"]["cause"]


def test_corpus_replay_names_the_upstream_issue_and_skips_a_cuda_case(cli, tmp_path):
    for name in ("pytorch-198183-erf-small.json", "pytorch-185480-elu-bf16-subnormal-cuda.json"):
        (tmp_path / name).write_text((ROOT / "corpus" / "upstream" / name).read_text())
    result = cli("corpus", tmp_path, "--replay", "--device", "cpu")
    assert result.exit_code == 0, result.output
    erf = next(line for line in result.output.splitlines() if "erf-small" in line)
    assert erf.split()[0] == "less_accurate" and "pytorch#198183" in erf
    cuda = next(line for line in result.output.splitlines() if "subnormal-cuda" in line)
    assert cuda.split()[0] == "skipped" and "pytorch#185480" in cuda and "needs cuda" in cuda


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.stem)
def test_fused_upcasts_are_never_flagged_by_inductor(path):
    outcome = run_case(load_case(path), resolve("inductor"), "cpu")
    assert outcome.verdict in (Verdict.MORE_ACCURATE, Verdict.EQUAL)


def test_save_is_named_by_content_and_leaves_no_temporaries(tmp_path):
    case = make_case(5, RunSpec("eager", samples=2))
    path = save_case(case, tmp_path)
    assert path.name == case.content_hash()[:16] + ".json"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    again = load_case(path)
    assert again.samples == case.samples and again.graph == case.graph
    assert again.provenance["seed"] == 5 and {"numfuzz", "torch", "thunder"} <= set(again.provenance)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda text: text[: len(text) // 2], "not valid JSON"),
        (lambda text: "[1, 2]", "top level"),
        (lambda text: re.sub(r'"schema": \d+', '"schema": 99', text), "newer than this numfuzz"),  # whichever schema it was saved in
        (lambda text: text.replace('"op": "neg"', '"op": "frobnicate"'), "unknown op"),
        (lambda text: json.dumps({**json.loads(text), "samples": [["AAAA"] * len(json.loads(text)["samples"][0])]}), "holds"),
    ],
)
def test_bad_case_files_fail_with_one_line(cli, tmp_path, mutate, message):
    case = make_case(5, RunSpec("eager", samples=1))
    # Append a neg node so that the unknown-op mutation has something to rename.
    case.graph = Graph(case.graph.inputs, case.graph.nodes + (Node.make("neg", [0]),), case.graph.outputs)
    path = save_case(case, tmp_path)
    path.write_text(mutate(path.read_text()))
    result = cli("replay", path)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output
    with pytest.raises(CaseError):
        load_case(path).tensors()


def test_corpus_replayed_under_another_interpreter_says_still_there_or_fixed(cli, tmp_path):
    """--python runs the replay there (here: this same interpreter): a finding that reproduces is still there, one that does not is fixed."""
    import sys

    import torch

    from numfuzz.corpus.case import Case
    from numfuzz.program.ir import TensorSpec

    plugin = str(ROOT / "tests" / "reformulating_target.py")
    expm1 = Graph((TensorSpec((16,), "fp32"),), (Node.make("expm1", [0]),), (1,))
    small = torch.tensor([2.0**-k for k in range(10, 26)])
    # the first is named by its recorded analysis's cause, as today's listing names it; the second was recorded a finding, is none here
    for name, x in (("cancellation", small), ("no-longer", torch.linspace(1.0, 2.0, 16))):
        case = Case.from_tensors(expm1, [[x]], RunSpec("reformulated", "cpu", imports=(plugin,)))
        outcome = run_case(case, _reformulated(plugin))
        case.result = {**outcome.to_json(), "verdict": "less_accurate"}
        case.extra["signature"] = {"target": "reformulated", "symptom": "less_accurate", "ops": ["expm1"], "dtype": "fp32", "cause": name}
        save_case(case, tmp_path / "corpus")
    result = cli("corpus", tmp_path / "corpus", "--replay", "--python", sys.executable, "--import", plugin)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"replayed under {sys.executable}: torch {torch.__version__}")
    assert any(line.startswith(f"still on torch {torch.__version__} (1/1 reproduce)") and "cancellation" in line for line in lines), result.output
    assert any(line.startswith(f"fixed by torch {torch.__version__} (0/1 reproduce)") and "no-longer" in line for line in lines), result.output
    bad = cli("corpus", tmp_path / "corpus", "--python", sys.executable)
    assert bad.exit_code == 2 and "give --replay with it" in bad.output


def _reformulated(plugin: str):
    from numfuzz.user_code import load_user_code

    load_user_code(plugin)
    return resolve("reformulated")


def test_a_finding_an_older_numfuzz_judged_is_measured_again_before_it_is_listed(cli, tmp_path):
    """An fp16 `acosh(sinc(x) + 1)` stored as a non-finite finding by a numfuzz before the domain-edge and
    ill-conditioning rules: listed, it runs again here, today's outcome is stored (the old one kept beside it), and it
    is no longer new. With --no-measure the stored judgement stands."""
    import torch

    from numfuzz.judge.execute import Outcome
    from numfuzz.program.ir import TensorSpec

    graph = Graph((TensorSpec((64,), "fp16"),), (Node.make("sinc", [0]), Node.make("add_scalar", [1], value=1.0), Node.make("acosh", [2])), (3,))
    old = Outcome(Verdict.NONFINITE, "").to_json()
    old.pop("rules_version")  # as numfuzz stored it before it recorded its rules' version
    from numfuzz.corpus.case import Case

    case = Case.from_tensors(graph, [[torch.arange(1, 65, dtype=torch.float16)]], RunSpec("inductor", "cpu", samples=1), result=old)
    path = save_case(case, tmp_path / "findings")
    assert "1 new" in cli("corpus", tmp_path, "--no-measure", "--no-confirm").output.splitlines()[-1]
    assert "measured_again" not in load_case(path).extra
    result = cli("corpus", tmp_path, "--no-confirm")
    assert result.exit_code == 0, result.output
    stored = load_case(path)
    assert stored.extra["measured_again"]["rules_version"] == 0 and stored.extra["measured_again"]["result"] == old
    assert not parse_verdict(stored.result["verdict"]).is_finding, stored.result
    assert "no findings" in result.output or "0 new" in result.output.splitlines()[-1], result.output


def test_a_minimised_finding_stored_unanalysed_is_analysed_before_it_is_listed(cli, tmp_path):
    """A campaign that stops takes its smallest case back unanalysed, with its original's cause: an atanh found as a NaN
    lost downstream (`nonfinite_dropped`), minimised to atanh alone on tiny values, where Inductor's vectorised atanh gives
    0. Listed, it is analysed here, and its own cause (atanh's kernel) makes it the known issue, not a new group."""
    import torch

    from numfuzz.corpus.case import Case
    from numfuzz.judge.execute import Outcome
    from numfuzz.program.ir import TensorSpec

    graph = Graph((TensorSpec((98,), "bf16"),), (Node.make("atanh", [0]),), (1,))
    case = Case.from_tensors(graph, [[torch.full((98,), 2.7e-20, dtype=torch.bfloat16)]], RunSpec("inductor", "cpu", samples=1), provenance=provenance("cpu"))
    case.result = Outcome(Verdict.LESS_ACCURATE, "").to_json()  # no analysis: as a stopped minimisation stores it
    case.extra["signature"] = {"target": "inductor", "symptom": "less_accurate", "ops": ["atanh"], "dtype": "bf16", "cause": "nonfinite_dropped"}
    case.extra["minimize"] = {"compiles": 9, "exhausted": False}
    path = save_case(case, tmp_path / "minimized")
    assert "1 new" in cli("corpus", tmp_path, "--no-measure", "--no-confirm").output.splitlines()[-1]
    result = cli("corpus", tmp_path, "--no-confirm")
    assert result.exit_code == 0, result.output
    stored = load_case(path)
    assert stored.result["analysis"]["cause"] == "cancellation" and "analysis" not in stored.extra["measured_again"]["result"], stored.result
    assert "known issue inductor-cpu-vectorized-erf" in result.output and "0 new" in result.output.splitlines()[-1], result.output
