"""`numfuzz.check` on planted "compilers" that need no real compiler, as the README's property test uses it."""

from __future__ import annotations

import linecache
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import Phase, find, given, settings

import numfuzz
from numfuzz.check import CallableTarget, CheckResult, as_target
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.strategies import Program, programs
from numfuzz.targets import TargetError
from numfuzz.targets.eager import Eager

QUIET = settings(max_examples=200, deadline=None, database=None, derandomize=True)


def through_bf16(fn):
    """A planted bug: every fp32 output rounded through bf16."""

    def run(*args):
        return tuple(t.to(torch.bfloat16).to(t.dtype) if t.dtype == torch.float32 else t for t in fn(*args))

    return run


def identity(fn):
    return fn


def neg_program(values=(0.3, -1.7, 2.5)) -> Program:
    graph = Graph((TensorSpec((len(values),), "fp32"),), (Node.make("neg", [0]),), (1,))
    return Program(graph, [[torch.tensor(values, dtype=torch.float32)]])


def test_the_planted_bug_is_found_and_shrinks_to_one_op():
    # less accurate, the values' finding: through_bf16 also returns a new tensor where eager returns a view (metadata)
    found = find(programs(max_nodes=4), lambda p: numfuzz.check(p, through_bf16).verdict is Verdict.LESS_ACCURATE, settings=QUIET)
    assert len(found.graph.nodes) == 1
    result = numfuzz.check(found, through_bf16)
    assert result.verdict is Verdict.LESS_ACCURATE and result.culprit.op == found.graph.nodes[0].op
    assert result.outputs[0].target_max_ulp > 100 * max(result.outputs[0].eager_max_ulp, 1.0)


def readme_example() -> str:
    """The Python block of the page on property tests (docs/property-tests.md)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "property-tests.md").read_text()
    section = text.split("# Writing property tests for your own compiler", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_fails_on_its_planted_bug_and_prints_the_shrunk_program():
    # Reproducible, and without Hypothesis's explain phase, which traces coverage (seconds).
    code = readme_example().replace("deadline=None)", "deadline=None, database=None, derandomize=True, phases=(Phase.generate, Phase.shrink))")
    filename = "<README example>"  # Hypothesis reads the test's source: linecache holds it
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    namespace: dict = {"Phase": Phase}
    exec(compile(code, filename, "exec"), namespace)
    with pytest.raises(AssertionError) as failure:
        namespace["test_my_compiler_is_as_accurate_as_eager"]()
    printed = "\n".join(getattr(failure.value, "__notes__", []))
    assert "Falsifying example" in printed or "Failing test case" in printed
    assert "def fn(" in printed and len(re.findall(r"\n\s+t\d+ = ", printed)) == 1  # one op
    # my_compile's two bugs: rounding (less accurate from the culprit on) and copies where eager gives views
    # (metadata); which one the shrunk program shows depends on the op table and Hypothesis's generation order
    explained = str(failure.value)
    rounded = "verdict: less_accurate" in explained and "starts at: t0 = " in explained
    copied = "verdict: metadata" in explained and "a new tensor where eager gives a view" in explained
    assert rounded or copied, explained


@settings(max_examples=50, deadline=None, database=None)
@given(programs(max_nodes=6, samples=2))
def test_the_identity_is_never_a_finding(program):
    result = numfuzz.check(program, identity)
    assert not result.is_finding, result.explain()


def test_targets_come_as_a_spec_a_target_object_or_a_callable():
    for target in ("eager", Eager(), identity, lambda fn: fn):
        result = numfuzz.check(neg_program(), target)
        assert result.verdict is Verdict.EQUAL and not result.is_finding
    assert isinstance(as_target(identity), CallableTarget) and as_target(identity).name == "identity"
    with pytest.raises(TargetError, match="unknown target"):
        numfuzz.check(neg_program(), "no-such-compiler")
    with pytest.raises(TypeError):
        numfuzz.check(neg_program(), 42)


def test_a_graph_takes_its_samples_and_refuses_to_go_without():
    program = neg_program()
    result = numfuzz.check(program.graph, through_bf16, samples=program.inputs)
    assert isinstance(result, CheckResult) and result.is_finding and result.cause
    assert "t0 = torch.neg(x0)" in result.explain() and "less_accurate" in result.explain()
    assert numfuzz.check(program, through_bf16, analysis=False).analysis is None
    with pytest.raises(ValueError, match="needs samples"):
        numfuzz.check(program.graph, identity)


def _raises_at_compile(fn):
    raise RuntimeError("backend exploded")


def _raises_when_run(fn):
    def run(*args):
        raise RuntimeError("kernel exploded")

    return run


def _wrong_shape(fn):
    return lambda *args: tuple(t.reshape(1, -1) for t in fn(*args))


@pytest.mark.parametrize(
    "compiler, verdict",
    [(_raises_at_compile, Verdict.CRASH_COMPILE), (_raises_when_run, Verdict.CRASH_COMPILE), (_wrong_shape, Verdict.MISMATCH)],
)
def test_what_a_compiler_does_wrong_comes_back_in_the_result(compiler, verdict):
    result = numfuzz.check(neg_program(), compiler)
    assert result.verdict is verdict and result.is_finding
    assert result.detail and result.detail in result.explain()


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_importing_numfuzz_does_not_import_torch():
    done = _python("import sys, numfuzz; assert 'torch' not in sys.modules, 'torch imported'; print(numfuzz.__version__)")
    assert done.returncode == 0, done.stderr


def test_numfuzz_check_is_callable_whether_the_module_or_the_function_holds_the_name():
    import numfuzz.check as module

    assert callable(numfuzz.check)  # here the module, bound by `import numfuzz.check`: it calls the function
    assert numfuzz.check(neg_program(), identity).verdict is Verdict.EQUAL
    assert numfuzz.__getattr__("check") is module.check and numfuzz.check is module.check
    assert numfuzz.strategies.programs is programs
