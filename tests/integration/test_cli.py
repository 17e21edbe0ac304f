import shutil

import pytest
from helpers import FINDINGS, SEEDS


def test_missing_file_unknown_target_and_bad_import_exit_2(cli, tmp_path):
    for args, message in [
        (("replay", tmp_path / "nope.json"), "no such file"),
        (("replay", SEEDS / "silu-mul-bf16.json", "--target", "tvm"), "unknown target"),
        (("replay", SEEDS / "silu-mul-bf16.json", "--import", tmp_path / "missing.py"), "no such file"),
        (("replay", SEEDS / "silu-mul-bf16.json", "--import", "no_such_module_xyz"), "No module named"),
        (("fuzz", "--target", "inductor"), "budget"),
        (("fuzz", "--target", "thunder:nope", "--graphs", "1"), "unavailable"),
        (("fuzz", "--target", "inductor:no_such_option=1", "--graphs", "1"), "no option"),
    ]:
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output


@pytest.mark.thunder
def test_replay_of_a_benign_seed_exits_0(cli):
    result = cli("replay", SEEDS / "silu-mul-bf16.json", "--target", "thunder:torch")
    assert result.exit_code == 0
    assert "verdict: equal" in result.output and "max ulp" in result.output


def test_targets_lists_families_with_availability(cli):
    result = cli("targets")
    assert result.exit_code == 0
    for name in ("eager", "thunder:torchcompile", "inductor", "thunderfx", "thunder:nvfuser"):
        assert name in result.output


def test_import_registers_executor_as_target(cli, planted_bugs):
    result = cli("targets", "--import", planted_bugs)
    assert result.exit_code == 0
    result = cli("fuzz", "--import", planted_bugs, "--target", "thunder:bug_expm1", "--graphs", "2")
    assert result.exit_code == 0, result.output
    assert "thunder:bug_expm1" in result.output


def test_a_malformed_known_issues_file_is_one_line_and_touches_nothing(cli, tmp_path):
    corpus = tmp_path / "corpus" / "findings"
    corpus.mkdir(parents=True)
    for path in FINDINGS.glob("*.json"):
        shutil.copy(path, corpus)
    before = {p: p.read_bytes() for p in corpus.iterdir()}
    bad = tmp_path / "known.toml"
    bad.write_text('[[issue]]\nid = "mine"\ntitle = "t"\n')  # no status
    for args in (
        ("corpus", tmp_path / "corpus", "--known", bad),
        ("fuzz", "--target", "inductor", "--graphs", "1", "--corpus", tmp_path / "corpus", "--known", bad),
    ):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "known.toml: issue 1: 'status'" in lines[0] and "Traceback" not in result.output
    assert {p: p.read_bytes() for p in corpus.iterdir()} == before
    assert not (tmp_path / "corpus" / "campaign").exists()


def test_a_malformed_bounds_file_is_one_line_and_touches_nothing(cli, tmp_path):
    corpus = tmp_path / "corpus" / "findings"
    corpus.mkdir(parents=True)
    for path in FINDINGS.glob("*.json"):
        shutil.copy(path, corpus)
    before = {p: p.read_bytes() for p in corpus.iterdir()}
    bad = tmp_path / "bounds.toml"
    bad.write_text('[[bound]]\nops = ["exp"]\nulp = "one"\nsource = "mine"\n')
    case = next(iter(sorted(corpus.iterdir())))
    for args in (
        ("corpus", tmp_path / "corpus", "--bounds", bad),
        ("fuzz", "--target", "inductor", "--graphs", "1", "--corpus", tmp_path / "corpus", "--bounds", bad),
        ("replay", case, "--bounds", bad),
        ("report", tmp_path / "corpus", "--no-sweep", "--bounds", bad),
    ):
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "bounds.toml: bound 1: 'ulp'" in lines[0] and "Traceback" not in result.output, lines
    assert {p: p.read_bytes() for p in corpus.iterdir()} == before
    assert not (tmp_path / "corpus" / "campaign").exists() and not (tmp_path / "corpus" / "report").exists()
