"""Error parity: a program eager raises on must be refused by the target too (pytorch#185481, #197807)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.make import make_case
from numfuzz.judge.execute import evaluate
from numfuzz.judge.signature import signature_of
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.generator import GenConfig
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.op_db.calls import eager_refuses
from numfuzz.program.op_db.family import FORMS, takes_integers
from numfuzz.program.ops import OPS, infer_specs
from numfuzz.repro.script import script_source
from numfuzz.run_spec import RunSpec
from numfuzz.targets import resolve

HARDSWISH = "db.nn.functional.hardswish"


def _hardswish_of_int32() -> tuple[Graph, list[list[torch.Tensor]]]:
    """hardswish of an int32 value: eager's CPU kernel is not implemented for it, Inductor's lowering computes it."""
    k, form = next((k, f) for k, f in enumerate(FORMS[HARDSWISH]) if len(f.args) == 1)
    graph = Graph((TensorSpec((3, 5), "i32"),), (Node.make(HARDSWISH, [0], form=form.call, sample=k),), (1,))
    return graph, [[torch.arange(-7, 8, dtype=torch.int32).reshape(3, 5)]]


def test_a_target_computing_what_eager_refuses_is_unchecked_and_one_raising_too_is_not():
    graph, samples = _hardswish_of_int32()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        computed = evaluate(graph, samples, resolve("inductor"), "cpu")
        refused = evaluate(graph, samples, resolve("eager"), "cpu")  # the control: raises as eager does
    assert computed.verdict is Verdict.UNCHECKED and "not implemented for 'Int'" in computed.detail, computed.detail
    assert refused.verdict is Verdict.INVALID and refused.detail.startswith("eager raised"), refused.detail
    signature = signature_of("inductor", computed)
    assert signature.symptom == "unchecked" and signature.fingerprint


def test_its_repro_fails_while_the_target_computes_and_passes_where_it_raises(tmp_path):
    graph, samples = _hardswish_of_int32()
    for target, fails in (("inductor", True), ("eager", False)):
        case = Case.from_tensors(graph, samples, RunSpec(target, "cpu", samples=1))
        script = tmp_path / f"{target}.py"
        script.write_text(script_source(case, resolve(target), "cpu"))
        ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
        assert (ran.returncode != 0) == fails, ran.stdout + ran.stderr[-2000:]
        assert ("the compiled program returns outputs" in ran.stderr) == fails


def test_integer_programs_give_float_only_ops_an_integer_eager_refuses():
    """Such an op joins an integer program at REFUSED_DTYPE_WEIGHT, and only where eager raises on the dtype."""
    refused = []
    for seed in range(400):
        case = make_case(seed, RunSpec("eager", samples=1), GenConfig.default(integers=1.0))
        specs = infer_specs(case.graph)
        for node in case.graph.nodes:
            if node.op in FORMS and not takes_integers(OPS[node.op]) and specs[node.args[0]].dtype not in ("fp16", "bf16", "fp32", "fp64"):
                form = next(f for f in FORMS[node.op] if f.call == node.attr("form"))
                if not any(a.floating and a.kind == "value" for a in form.args[1:]):  # not a mixed form: eager must refuse it
                    refused.append((node.op, tuple((specs[a].shape, specs[a].dtype) for a in node.args), form.call))
    assert 3 <= len(refused) <= 60, refused
    assert all(eager_refuses(call, "", args) for _, args, call in refused if "{dtype}" not in call)


def test_eager_lacking_a_float_kernel_is_no_check_the_target_lost():
    """avg_pool3d has no bf16 CPU kernel in eager (pytorch#83321, closed as expected): a compiler's own kernel is no lost check."""
    from numfuzz.judge.error_parity import MISSING_FLOAT_KERNEL

    assert MISSING_FLOAT_KERNEL.search("NotImplementedError: \"avg_pool3d_out_frame\" not implemented for 'BFloat16'")
    assert not MISSING_FLOAT_KERNEL.search("NotImplementedError: \"hardswish_cpu\" not implemented for 'Int'")
    assert not MISSING_FLOAT_KERNEL.search("NotImplementedError: \"logcumsumexp_out_cpu\" not implemented for 'Byte'")
