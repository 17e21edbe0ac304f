"""`numfuzz ops` lists the op table with families, domains, dtypes and draw shares; it imports no torch unless measuring."""

import subprocess
import sys

from numfuzz.cli.ops import weight_shares
from numfuzz.program.ops import OPS


def test_lists_every_op_with_its_data(cli):
    result = cli("ops")
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line.split() for line in result.output.splitlines()[1:] if line.split() and line.split()[0] in OPS}
    assert set(lines) == set(OPS)
    assert lines["atanh"][1:4] == ["unary", "1", "unit"]
    assert lines["fmod"][1:4] == ["elementwise", "2", "any,nonzero"]
    assert lines["nll_loss"][1:6] == ["fresh", "2", "any,index", "all;", "x1"] and "i64" in lines["gather"]  # the integer input
    assert f"{len(OPS)} ops" in result.output
    assert abs(sum(weight_shares().values()) - 1) < 1e-12


def test_measure_counts_drawn_nodes(cli):
    result = cli("ops", "--measure", "30", "--family", "fresh")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()[1:] if line.split() and line.split()[0] in OPS]
    assert rows and all(OPS[r[0]].family == "fresh" for r in rows)
    assert all(r[-1].endswith("%") and r[-2].endswith("%") for r in rows)  # share, then drawn
    assert "drawn:" in result.output


def test_an_unknown_family_is_refused_with_the_known_ones(cli):
    result = cli("ops", "--family", "no_such_family")
    assert result.exit_code != 0 and "no_such_family" in result.output and "fresh" in result.output


def test_the_listing_needs_no_torch():
    code = "import sys; from numfuzz.cli.ops import ops_table; ops_table(); assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
