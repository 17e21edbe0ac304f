"""Groups from stored cases, without running anything: one group per root cause."""

from __future__ import annotations

from helpers import save_finding

from numfuzz.corpus.grouping import group_corpus, listed
from numfuzz.corpus.known import load_known
from numfuzz.judge.bounds import load_bounds
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec


def _unary(op: str, dtype: str, then: str | None = None, **attrs) -> Graph:
    nodes = (Node.make(op, [0], **attrs),) + ((Node.make(then, [1], dim=-1),) if then else ())
    return Graph((TensorSpec((4, 4), dtype),), nodes, (len(nodes),))


def _groups(tmp_path, everything: bool = False):
    groups, problems = group_corpus(tmp_path, load_known(), load_bounds([]))
    assert not problems
    return listed(groups, everything)


def test_one_formula_is_one_group_whatever_the_dtype(tmp_path):
    for dtype, value in (("bf16", 1.0), ("fp32", 2.0), ("fp16", 3.0)):
        save_finding(tmp_path, _unary("expm1", dtype), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", dtype, "cancellation", value=value)
    (group,) = _groups(tmp_path)
    assert group.count == 3 and group.dtypes == {"bf16", "fp16", "fp32"}
    assert group.title == "thunder:bug_expm1 | expm1 | bf16,fp16,fp32 | cancellation"


def test_the_softmax_pow_class_is_one_mechanism_group_wherever_it_is_located(tmp_path):
    target = "inductor:emulate_precision_casts=1"
    save_finding(
        tmp_path,
        _unary("pow_scalar", "bf16", "log_softmax", exponent=2.5),
        target,
        Verdict.NONFINITE,
        "pow_scalar",
        "bf16",
        "nonfinite_intermediate",
        located="cutting",
    )
    save_finding(tmp_path, _unary("expm1", "fp32", "softmax"), target, Verdict.NONFINITE, "expm1", "fp32", "nonfinite_intermediate", located="cutting")
    save_finding(
        tmp_path, _unary("exp", "fp32", "softmax"), target, Verdict.NONFINITE, "softmax", "fp32", "nonfinite_intermediate", node=1, located="fallback (why)"
    )
    save_finding(tmp_path, _unary("exp", "fp32", "log_softmax"), target, Verdict.LESS_ACCURATE, "exp", "fp32", "unexplained", located="cutting", value=5.0)
    # not the mechanism: the op's own value, exposed, is already non-finite (located by the probe)
    save_finding(tmp_path, _unary("exp", "fp32", "softmax"), target, Verdict.NONFINITE, "exp", "fp32", "nonfinite_intermediate", located="probe", value=7.0)
    groups = _groups(tmp_path)
    (mechanism,) = [g for g in groups if g.mechanism is not None]
    assert mechanism.count == 4 and mechanism.ops == {"pow_scalar", "expm1", "softmax", "exp"}
    assert mechanism.known.id == "numfuzz-reduction-recompute"  # the committed softmax(pow) finding: one known group
    assert len(groups) == 2
    unknown, _ = group_corpus(tmp_path, [], load_bounds([]))  # without the known issues it is a group of its own, named for its mechanism
    (mechanism,) = [g for g in unknown if g.mechanism is not None]
    assert "reduction and its recomputed input disagree" in mechanism.title and mechanism.count == 4


def test_a_known_issue_is_one_group_whatever_its_causes_dtypes_and_ops(tmp_path):
    save_finding(tmp_path, _unary("erf", "fp32"), "inductor", Verdict.LESS_ACCURATE, "erf", "fp32", "cancellation")
    save_finding(tmp_path, _unary("erf", "bf16"), "inductor", Verdict.LESS_ACCURATE, "erf", "bf16", "kernel_accuracy")
    save_finding(tmp_path, _unary("var", "fp32", dim=-1, correction=1, keepdim=False), "inductor", Verdict.NONFINITE, "var", "fp32", "nonfinite_intermediate")
    save_finding(
        tmp_path, _unary("var", "fp32", dim=-1, correction=1, keepdim=False), "inductor", Verdict.LESS_ACCURATE, "var", "fp32", "low_precision", value=2.0
    )
    groups = _groups(tmp_path)
    assert sorted((g.known.id, g.count) for g in groups) == [("inductor-cpu-var-fp32-accumulator", 2), ("inductor-cpu-vectorized-erf", 2)]
    assert all(g.title.startswith("inductor | known issue ") for g in groups)


def _record(op: str, forward: float, needed: float) -> dict:
    return {"op": op, "dtype": "fp32", "device": "cpu", "n": 1, "bound": {}, "target": {"front": [[forward, needed]]}, "eager": {}}


def test_within_rounding_is_judged_from_the_stored_record_and_listed_only_when_asked(tmp_path):
    cos = _unary("cos", "fp32")
    save_finding(tmp_path, cos, "inductor", Verdict.WITHIN_ROUNDING, "cos", "fp32", "kernel_accuracy", backward_error=_record("cos", 1.02, 0.0))
    # recorded less accurate, but the stored backward error is within the bound: judged by today's bounds
    save_finding(tmp_path, cos, "inductor", Verdict.LESS_ACCURATE, "cos", "fp32", "kernel_accuracy", value=2.0, backward_error=_record("cos", 40.0, 0.3))
    assert _groups(tmp_path) == []
    (group,) = _groups(tmp_path, everything=True)
    assert group.benign and group.count == 2
    # a user's stricter bound makes the same stored record a finding again, without running anything
    strict = tmp_path.parent / "strict.toml"
    strict.write_text('[[bound]]\nops = ["cos"]\nulp = 0.1\nsource = "correctly rounded cos"\n')
    groups, _ = group_corpus(tmp_path, load_known(), load_bounds([strict]))
    assert [g.benign for g in listed(groups)] == [False]


def test_old_cases_without_a_backward_error_stay_findings(tmp_path):
    save_finding(tmp_path, _unary("cos", "fp32"), "inductor", Verdict.LESS_ACCURATE, "cos", "fp32", "kernel_accuracy")
    (group,) = _groups(tmp_path)
    assert not group.benign


def test_a_dropped_cast_in_bf16_and_fp16_is_one_group(tmp_path):
    graph = Graph((TensorSpec((4, 4), "fp32"),), (Node.make("cast", [0], dtype="bf16"), Node.make("cast", [1], dtype="fp32")), (2,))
    save_finding(tmp_path, graph, "thunder:bug_cast", Verdict.LESS_ACCURATE, "cast", "bf16", "cast_dropped")
    save_finding(tmp_path, graph, "thunder:bug_cast", Verdict.LESS_ACCURATE, "cast", "fp16", "cast_dropped", value=2.0)
    (group,) = _groups(tmp_path)
    assert group.count == 2 and group.title == "thunder:bug_cast | explicit cast dropped"


def _crash(folder, ops: list[str], detail: str, minimised: bool, value: float = 1.0):
    """A stored crash finding, as a campaign saves one (its signature from its outcome), minimised to `ops` or not."""
    from dataclasses import replace

    import torch

    from numfuzz.corpus.case import Case
    from numfuzz.corpus.store import save_case
    from numfuzz.judge.execute import Outcome
    from numfuzz.judge.signature import signature_of

    nodes = tuple(Node.make(op, [k]) for k, op in enumerate(ops))
    graph = Graph((TensorSpec((4,), "fp32"),), nodes, (len(nodes),))
    outcome = Outcome(Verdict.CRASH_COMPILE, detail)
    case = Case.from_tensors(graph, [[torch.full((4,), value)]], "thunder:torch", provenance={"torch": "2.9.1", "thunder": "0.2.6"}, result=outcome.to_json())
    signature = signature_of("thunder:torch", outcome, case.run)
    if minimised:
        signature = replace(signature, ops=tuple(ops))
        case.extra["minimize"] = {"compiles": 3}
    case.extra["signature"] = signature.to_json()
    return save_case(case, folder)


def test_crashes_group_by_their_message_and_an_unminimised_one_joins_its_minimised_sibling(tmp_path):
    trunc = 'RuntimeError: expected scalar type BFloat16 but found Double at t{}  # t{}: "cpu f32[{}]"'
    _crash(tmp_path / "minimized", ["exp"], trunc.format(3, 3, 8), minimised=True)
    _crash(tmp_path / "findings", ["sin", "exp", "cos"], trunc.format(12, 12, 64), minimised=False, value=2.0)  # other temporaries and shapes
    _crash(tmp_path / "findings", ["tanh"], "TypeError: frobnicate() got an unexpected keyword argument 'widdershins'", minimised=False)
    groups = _groups(tmp_path)
    assert len(groups) == 2
    (scalar,) = [g for g in groups if "BFloat16" in g.title]
    assert scalar.count == 2 and "| exp |" in scalar.title and "?" not in scalar.title, scalar.title
    (other,) = [g for g in groups if "frobnicate()" in g.title]
    assert other.count == 1


def test_a_thunder_limitation_is_known_and_a_typeerror_on_a_supported_op_stays_new(tmp_path):
    _crash(tmp_path, ["trunc"], 'RuntimeError: Failed to find a gradient transform for bound symbol bsym=t1 = prims.trunc(t0)  # t1: "cpu f32[5]"', True)
    _crash(tmp_path, ["round"], "TypeError: round() got an unexpected keyword argument 'widdershins'", True)
    by_kind = {g.title.split(" | ")[1]: g for g in _groups(tmp_path)}
    limitation = next(g for g in by_kind.values() if g.known is not None)
    assert limitation.known.id == "thunder-0.2.6-no-gradient-transform" and limitation.known.kind == "limitation"
    assert sum(g.known is None for g in by_kind.values()) == 1  # the TypeError


def _restamp(path, mode: str = "", original=None):
    """The stored finding at `path` as found under `mode` ("threads=2" or "dynamic": its run and its signature say so), or as
    the minimised version of `original`."""
    from dataclasses import replace

    from numfuzz.corpus.store import load_case, save_case
    from numfuzz.judge.signature import Signature

    case = load_case(path)
    case.run = case.run.with_changes(**{"": {}, "threads=2": {"threads": 2}, "dynamic": {"dynamic": "dynamic"}}[mode])
    case.extra["signature"] = replace(Signature.from_json(case.extra["signature"]), mode=mode).to_json()
    if original is not None:
        case.extra["minimize"] = {"compiles": 3}
        case.extra["original"] = {"hash": load_case(original).content_hash()}
    path.unlink()
    return save_case(case, path.parent)


def test_duplicates_follow_their_minimised_sibling_when_minimising_dropped_the_mode(tmp_path):
    """A finding under threads=2, minimised without it: its unminimised duplicates join the minimised group."""
    found = tmp_path / "findings"
    first = _restamp(
        save_finding(found, _unary("expm1", "fp32", then="softmax"), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", "fp32", "cancellation"), "threads=2"
    )
    _restamp(
        save_finding(found, _unary("expm1", "bf16", then="softmax"), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", "bf16", "cancellation", value=2.0),
        "threads=2",
    )
    smallest = save_finding(
        tmp_path / "minimized", _unary("expm1", "fp32"), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", "fp32", "cancellation", value=3.0
    )
    _restamp(smallest, original=first)
    (group,) = _groups(tmp_path)
    assert group.count == 2 and group.minimized and "threads" not in group.title
    # a finding under another mode, which no minimised case came from, still stands apart
    _restamp(save_finding(found, _unary("expm1", "fp16"), "thunder:bug_expm1", Verdict.LESS_ACCURATE, "expm1", "fp16", "cancellation", value=4.0), "dynamic")
    assert sorted(g.count for g in _groups(tmp_path)) == [1, 2]


def test_a_campaign_corpus_without_findings_and_numfuzz_own_files_are_no_cases(tmp_path):
    """A campaign's journal and stats are not cases, nor are the answers kept beside cases (newest.json)."""
    from numfuzz.corpus.grouping import case_paths, group_corpus

    (tmp_path / "campaign" / "seed0").mkdir(parents=True)
    (tmp_path / "campaign" / "seed0" / "state.json").write_text("{}")
    assert case_paths(tmp_path) == [] and group_corpus(tmp_path) == ([], [])
    plain = tmp_path / "cases"
    plain.mkdir()
    (plain / "newest.json").write_text('{"answers": {}}')
    (plain / "minimize_notes.json").write_text("{}")
    assert case_paths(plain) == []
