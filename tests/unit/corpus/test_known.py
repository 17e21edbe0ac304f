"""Known upstream issues: the shipped file parses, rules match as documented, bad files fail in one line."""

from __future__ import annotations

import pytest
from helpers import CPU_29, CPU_214

from numfuzz.corpus.known import KnownIssuesError, load_known, match_known, parse_known
from numfuzz.judge.signature import Signature


def test_cast_elision_is_known_by_default_and_new_with_the_opt_out_where_it_works():
    known = load_known()
    dropped = Signature("inductor", "less_accurate", ("cast",), "bf16", "cast_dropped")
    assert match_known(known, dropped, CPU_29).id == "inductor-cast-elision"
    assert match_known(known, Signature("thunder:torchcompile", "less_accurate", ("cast",), "fp16", "cast_dropped"), CPU_29).id == "inductor-cast-elision"
    opted_out = Signature("inductor:emulate_precision_casts=1", "less_accurate", ("cast",), "bf16", "cast_dropped")
    assert match_known(known, opted_out, CPU_29).id == "inductor-emulate-precision-casts-cpu"  # the flag did nothing on CPU then
    assert match_known(known, opted_out, CPU_214) is None  # it works there: a dropped cast is new
    assert match_known(known, dropped, {"torch": "2.9.1", "device": "cpu"}).status.startswith("intended by default")


def test_version_and_op_rules():
    known = load_known()
    expm1 = Signature("inductor", "less_accurate", ("expm1",), "fp32", "cancellation")
    assert match_known(known, expm1, CPU_29).id == "inductor-cpu-vectorized-expm1"
    assert match_known(known, expm1, CPU_214) is None  # fixed there
    assert match_known(known, expm1, {**CPU_29, "device": "cuda"}) is None
    assert match_known(known, Signature("inductor", "less_accurate", ("erf",), "fp32", "cancellation"), CPU_214).id == "inductor-cpu-vectorized-erf"
    assert match_known(known, Signature("inductor", "nonfinite", ("softmax",), "fp32", "nonfinite_intermediate"), CPU_214) is None
    assert match_known(known, Signature("thunder:bug_expm1", "less_accurate", ("expm1",), "fp32", "cancellation"), CPU_29) is None


def test_a_mechanism_rule_matches_the_mechanism_whatever_the_culprit_op():
    known = load_known()
    for culprit in ("pow", "softmax", "expm1"):
        signature = Signature("inductor:emulate_precision_casts=1", "nonfinite", (culprit,), "fp32", "nonfinite_intermediate")
        assert match_known(known, signature, CPU_214, "reduction-recompute").id == "numfuzz-reduction-recompute"
    assert match_known(known, Signature("inductor", "nonfinite", ("pow",), "fp32", "nonfinite_intermediate"), CPU_214) is None  # no mechanism


def test_a_symptom_rule_keeps_a_nan_gradient_issue_off_a_rounding_difference():
    known = load_known()
    nan = Signature("thunder:torch", "nonfinite", ("elu",), "fp16", "backward")
    assert match_known(known, nan, CPU_29).id == "numfuzz-thunder-vjp-inf-times-zero"
    assert match_known(known, Signature("thunder:torch", "nonfinite", ("sigmoid",), "fp32", "backward"), CPU_29).id == "lightning-thunder-1892"
    assert match_known(known, Signature("thunder:torch", "less_accurate", ("sigmoid",), "fp32", "backward"), CPU_29) is None


def test_a_user_file_adds_and_replaces_entries(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('[[issue]]\nid = "my-softmax"\ntitle = "t"\nstatus = "filed as #1"\ntargets = ["inductor*"]\nops = ["softmax"]\n')
    known = load_known([mine])
    assert match_known(known, Signature("inductor", "nonfinite", ("softmax",), "fp32", "nonfinite_intermediate"), CPU_214).id == "my-softmax"
    assert len(known) == len(load_known()) + 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[issue]\nid=", "not valid TOML"),
        ('[[issue]]\nid = "x"\ntitle = "t"\n', "'status' must be a non-empty string"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nops = "exp"\n', "'ops' must be a list of strings"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\ntorch = "newest"\n', "not a version specifier"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nop = ["exp"]\n', "unknown key(s) op"),
        ('[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\n[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\n', "ids repeat"),
        ("[other]\nx = 1\n", "expected only [[issue]] tables"),
        (
            '[[issue]]\nid = "x"\ntitle = "t"\nstatus = "s"\nops = ["exp", "expm"]\n',
            "issue 1 (x): 'ops' names 'expm', which is no op of the table (did you mean 'exp",
        ),
        (
            '[[issue]]\nid = "y"\ntitle = "t"\nstatus = "s"\nupstream_ops = ["conv3d"]\n',
            "issue 1 (y): 'upstream_ops' names 'conv3d', which is no op of the table",
        ),
    ],
)
def test_a_malformed_file_is_one_line(text, message):
    with pytest.raises(KnownIssuesError) as caught:
        parse_known(text, "bad.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value) and str(caught.value).startswith("bad.toml")


def test_an_upstream_op_rule_matches_a_backward_downstream_of_the_op_through_the_group_key():
    """mse_loss(celu(x), y)'s gradient under Thunder's torchcompile: the fused backward recomputes celu through expm1."""
    from numfuzz.corpus.group_key import GroupKey
    from numfuzz.judge.facts import Analysis, Culprit
    from numfuzz.program.ir import Graph, Node, TensorSpec

    graph = Graph((TensorSpec((8,), "fp32"), TensorSpec((8,), "fp32")), (Node.make("celu", [0]), Node.make("mse_loss", [2, 1])), (3,))
    backward = Signature("thunder:torchcompile", "less_accurate", ("mse_loss",), "fp32", "backward")
    facts = Analysis(1, "backward", op="mse_loss", dtype="fp32", culprit=Culprit(1, "mse_loss", "fp32", "less_accurate", "cutting the backward"))
    key = GroupKey.of(backward, graph, facts, load_known(), CPU_29)
    assert key.known is not None and key.known.id == "inductor-cpu-vectorized-expm1-recomputed-in-backward"
    assert GroupKey.of(backward, graph, facts, load_known(), CPU_214).known is None  # fixed there
    without = Graph(graph.inputs, (Node.make("tanh", [0]), Node.make("mse_loss", [2, 1])), (3,))
    assert GroupKey.of(backward, without, facts, load_known(), CPU_29).known is None  # no expm1 upstream
    assert match_known(load_known(), backward, CPU_29) is None  # no program at hand: the rule cannot claim it
