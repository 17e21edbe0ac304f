"""Repro scripts run standalone and fail while the bug is there; issue texts carry what an engineer needs."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import torch
from planted_findings import PLANTED, found, minimized, planted_target

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import save_case
from numfuzz.repro.issue import issue_markdown, snippet_source
from numfuzz.repro.literals import tensor_literal
from numfuzz.repro.script import script_source
from numfuzz.repro.writer import write_repro
from numfuzz.targets import resolve

CORRECT = "correct"  # the expm1 finding, on an executor that is bit-identical to eager


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Write every repro, then run the scripts side by side in fresh interpreters, from an empty folder."""
    out = tmp_path_factory.mktemp("repros")
    files, procs = {}, {}
    for executor in sorted(PLANTED):
        files[executor] = write_repro(minimized(executor).case, planted_target(executor), "cpu", out, minimized(executor).case.run.imports)
    case = minimized("bug_expm1").case
    correct = Case(case.graph, case.samples, "thunder:torch", provenance={}, extra={})
    files[CORRECT] = write_repro(correct, resolve("thunder:torch"), "cpu", out / "correct")
    run_in = tmp_path_factory.mktemp("elsewhere")
    for name, written in files.items():
        procs[name] = subprocess.Popen([sys.executable, str(written.script)], cwd=run_in, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        results[name] = (proc.returncode, stdout, stderr)
    return files, results


@pytest.mark.thunder  # the planted executors are Thunder's
@pytest.mark.parametrize("executor", sorted(PLANTED))
def test_repro_script_fails_while_the_bug_is_there(ran, executor):
    files, results = ran
    code, stdout, stderr = results[executor]
    assert code != 0, stdout
    assert "AssertionError: the compiled result is less accurate than eager" in stderr, stderr[-2000:]
    assert "error against the float64 reference" in stdout
    assert files[executor].outcome.verdict.value == PLANTED[executor][1]


@pytest.mark.thunder
def test_repro_script_passes_for_a_correct_executor(ran):
    files, results = ran
    code, stdout, stderr = results[CORRECT]
    assert code == 0, stderr[-2000:]
    assert "OK: the compiled result is at least as accurate as eager" in stdout
    assert not files[CORRECT].outcome.verdict.is_finding


@pytest.mark.thunder
def test_script_prints_the_numbers_numfuzz_measured(ran):
    files, results = ran
    stdout = results["bug_expm1"][1]
    errors = files["bug_expm1"].outcome.outputs[0]
    assert f"{errors.eager_max_ulp:>11.4g}" in stdout and f"{errors.target_max_ulp:>11.4g}" in stdout


@pytest.mark.thunder
def test_script_is_standalone_and_embeds_the_program_as_lowered():
    from numfuzz.program.lowering import lower

    case = minimized("bug_cast").case
    script = script_source(case, planted_target("bug_cast"), "cpu", case.run.imports)
    assert "numfuzz" not in [line.split()[1] for line in script.splitlines() if line.startswith(("import ", "from "))]
    assert lower(case.graph) in script and lower(case.graph, "fn_fp64", reference=True) in script
    assert "round_to(" in script  # the reference honours the explicit cast
    assert "import planted_bugs" in script and "get_executor('bug_cast')" in script
    from numfuzz.judge import oracle

    assert f"MIN_Z = {oracle.MIN_Z!r}" in script and f"GROSS_FACTOR = {oracle.GROSS_FACTOR!r}" in script


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_tensor_literal_is_exact(dtype):
    bits = {torch.bfloat16: torch.int16, torch.float16: torch.int16, torch.float32: torch.int32}[dtype]
    generator = torch.Generator().manual_seed(0)
    raw = torch.randint(torch.iinfo(bits).min, torch.iinfo(bits).max, (4, 5), dtype=bits, generator=generator)
    values = raw.view(dtype)
    values[0, :4] = torch.tensor([0.0, -0.0, math.inf, -math.inf], dtype=dtype)
    values[1, 0] = torch.finfo(dtype).smallest_normal / 4  # subnormal
    rebuilt = eval(tensor_literal(values), {"torch": torch, "math": math})
    assert rebuilt.dtype == dtype and rebuilt.shape == values.shape
    same = rebuilt.view(bits) == values.view(bits)
    assert bool((same | (rebuilt.isnan() & values.isnan())).all())
    assert eval(tensor_literal(torch.full((3,), 0.5, dtype=dtype)), {"torch": torch}).tolist() == [0.5] * 3
    assert eval(tensor_literal(torch.tensor(-2.0, dtype=dtype)), {"torch": torch}).shape == ()


@pytest.mark.thunder
def test_issue_text_has_title_versions_snippet_table_and_trace(ran):
    files, _ = ran
    text = files["bug_expm1"].issue.read_text()
    assert text.startswith("# thunder:bug_expm1: `expm1` on ")
    assert "less accurate than eager" in text.splitlines()[0]
    assert f"torch {torch.__version__}" in text and "thunder " in text and "device: cpu" in text
    assert "def fn(x0):\n    t0 = torch.expm1(x0)" in text
    assert "max ulp" in text and "worse on" in text
    assert "## Final execution trace" in text and "bug_expm1_impl" in text  # the op landed in the broken executor
    assert "minimised from" in text and "compiles" in text


@pytest.mark.thunder
def test_issue_snippet_runs(planted_bugs, capsys):
    case = minimized("bug_softplus").case
    snippet = snippet_source(case, planted_target("bug_softplus"), "cpu", case.run.imports)
    exec(compile(snippet, "<snippet>", "exec"), {})
    printed = capsys.readouterr().out
    assert "eager: greatest absolute difference" in printed and "compiled:" in printed
    assert "inf" in printed.split("compiled:")[1]


def test_issue_snippet_with_infinite_inputs_runs(capsys):
    """Literals of inf and nan need `math` in the snippet too (the sdpa fully masked row's query is +inf)."""
    from numfuzz.corpus.case import Case
    from numfuzz.program.ir import Graph, Node, TensorSpec
    from numfuzz.targets import resolve

    graph = Graph((TensorSpec((3,), "fp32"),), (Node.make("exp", [0]),), (1,))
    case = Case.from_tensors(graph, [[torch.tensor([math.inf, -math.inf, 0.0])]], "eager")
    exec(compile(snippet_source(case, resolve("eager"), "cpu", ()), "<snippet>", "exec"), {})
    assert "compiled: greatest absolute difference" in capsys.readouterr().out


@pytest.mark.thunder
def test_crash_issue_says_what_failed():
    from numfuzz.judge.bounds import load_bounds
    from numfuzz.judge.execute import Outcome
    from numfuzz.judge.verdicts import Verdict

    case = minimized("bug_expm1").case
    outcome = Outcome(Verdict.CRASH_COMPILE, "prepare raised NotImplementedError: no expm1 for you")
    text = issue_markdown(case, outcome, "snippet", "script", "cpu", load_bounds([]))
    assert text.splitlines()[0] == "# thunder:bug_expm1: `expm1` raises while compiling (NotImplementedError)"
    assert "NotImplementedError: no expm1 for you" in text


@pytest.mark.thunder
def test_cli_repro_writes_both_files(cli, planted_bugs, tmp_path):
    path = save_case(minimized("bug_sum").case, tmp_path / "cases")
    result = cli("repro", path, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "out").glob("repro_*.py"))) == 1 and len(list((tmp_path / "out").glob("issue_*.md"))) == 1
    assert "verdict here: less_accurate" in result.output


@pytest.mark.thunder
def test_script_without_the_users_executor_fails_plainly(tmp_path):
    case = minimized("bug_expm1").case
    script = tmp_path / "repro.py"
    script.write_text(script_source(case, planted_target("bug_expm1"), "cpu", imports=()))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "thunder has no executor ['bug_expm1']" in proc.stderr
    assert "AssertionError" not in proc.stderr


@pytest.mark.thunder
def test_cli_repro_bad_input(cli, tmp_path):
    missing = cli("repro", tmp_path / "nope.json")
    assert missing.exit_code == 2 and "no such file" in missing.output
    path = save_case(found("bug_expm1"), tmp_path)
    unknown = cli("repro", path, "--target", "nosuch")
    assert unknown.exit_code == 2 and "unknown target" in unknown.output


@pytest.mark.thunder
def test_fuzz_to_repro_with_no_hand_work(cli, planted_bugs, tmp_path):
    """A planted bug goes from `numfuzz fuzz` to a one-op repro script and issue text."""
    from numfuzz.corpus.grouping import group_corpus

    corpus = tmp_path / "corpus"
    result = cli(
        "fuzz", "--import", planted_bugs, "--target", "thunder:bug_expm1", "--graphs", 40, "--samples", 8, "--corpus", corpus,
        "--ops", "expm1,add,mul,neg,tanh,cast",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    groups, problems = group_corpus(corpus)
    assert groups and not problems
    smallest = groups[0].smallest
    assert smallest.parent.name == "minimized"  # fuzz minimised it on its own
    repro = cli("repro", smallest, "-o", tmp_path / "out", "--import", planted_bugs)
    assert repro.exit_code == 0, repro.output
    (script,) = (tmp_path / "out").glob("repro_*.py")
    assert (tmp_path / "out" / script.name.replace("repro_", "issue_").replace(".py", ".md")).is_file()
    source = script.read_text()
    body = source[source.index("def fn(") : source.index("return")]
    assert body.count(" = ") <= 2  # one or two ops
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "AssertionError" in proc.stderr
