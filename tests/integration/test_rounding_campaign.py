"""A campaign keeps within_rounding cases apart from findings: saved in rounding/, not minimised, listed only with --all."""

from __future__ import annotations

from helpers import ROOT, cli_flags

from numfuzz.corpus.store import iter_cases, load_case
from numfuzz.program.space import GenConfig


def test_within_rounding_cases_are_kept_counted_and_listed_only_when_asked(cli, tmp_path):
    args = ["fuzz", "--import", ROOT / "tests" / "reformulating_target.py", "--target", "reformulated", "--graphs", "40", "--ops", "addcmul,add,mul"]
    # a plain campaign over these ops: the reformulating target differs from eager on addcmul alone
    plain = cli_flags(GenConfig(max_nodes=2, ops=("addcmul", "add", "mul")))
    result = cli(*args, "--max-nodes", "2", "--workers", "1", "--search", "0", *plain, "--corpus", tmp_path)
    assert result.exit_code == 0, result.output
    kept = [load_case(p) for p in iter_cases(tmp_path / "rounding")]
    assert kept and all(c.result["verdict"] == "within_rounding" for c in kept)
    assert {tuple(c.extra["signature"]["ops"]) for c in kept} == {("addcmul",)}
    assert "within_rounding" in result.output  # the campaign's verdict table counts them
    minimised = {load_case(p).extra["original"]["hash"] for p in iter_cases(tmp_path / "minimized")}
    assert not minimised & {c.content_hash() for c in kept}
    hidden = cli("corpus", tmp_path)
    assert "benign group hidden" in hidden.output and "| within_rounding |" not in hidden.output
    shown = cli("corpus", tmp_path, "--all")
    assert f"{len(kept):>5}           -  reformulated | within_rounding | addcmul" in shown.output
