"""An expanded input whose stored values differ along its expanded dim is refused by every command that loads a case.

Built from a committed finding (a 1-D fp16 input of 15 values), at ranks 1 to 3: the same values
laid out as an expanded dim cannot be what memory with stride 0 holds. Before anything runs, each
command that takes one case says so in one line and exits 2, `corpus --replay` too (a check that
skipped the case would pass without it), and the corpus listing names the file it skips.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from helpers import ROOT

COMMITTED = ROOT / "corpus" / "findings" / "thunder-elu-fp16-backward-nan.json"
SHAPES = {1: [15], 2: [3, 5], 3: [3, 1, 5]}  # the expanded dim is 0, of size 15 or 3


def _expanded(tmp_path, rank: int, distinct: bool):
    data = json.loads(COMMITTED.read_text())
    assert np.unique(np.frombuffer(base64.b64decode(data["samples"][0][0]), np.float16)).size == 1  # the committed values are all 128
    data["graph"]["inputs"][0] |= {"shape": SHAPES[rank], "layout": {"expand": [0]}}
    if distinct:
        data["samples"][0][0] = base64.b64encode((np.arange(15, dtype=np.float16) * 8 + 100).tobytes()).decode()
    data["extra"].pop("signature", None)  # recorded for the 1-D shape
    folder = tmp_path / f"rank{rank}"
    folder.mkdir()
    path = folder / "case.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("command", ["replay", "minimize", "repro", "corpus --replay"])
def test_an_expanded_input_with_differing_values_is_one_line_and_exit_2(cli, tmp_path, rank, command):
    path = _expanded(tmp_path, rank, distinct=True)
    args = {
        "replay": [path],
        "minimize": [path, "-o", tmp_path / "m.json"],
        "repro": [path, "-o", tmp_path / "r"],
        "corpus --replay": [path.parent, "--replay"],
    }
    result = cli(*command.split()[:1], *args[command], *command.split()[1:])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "input x0's values differ along dim [0], which its layout expands with stride 0" in lines[0]
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "r").exists()


def test_the_corpus_listing_names_the_file_it_skips(cli, tmp_path):
    path = _expanded(tmp_path, 1, distinct=True)
    result = cli("corpus", path.parent)
    assert result.exit_code == 0 and f"skipped {path}: sample 0: input x0's values differ along dim [0]" in result.output


@pytest.mark.parametrize("rank", [1, 3])
def test_the_same_layout_over_equal_values_loads(tmp_path, rank):
    from numfuzz.corpus.store import load_case

    case = load_case(_expanded(tmp_path, rank, distinct=False))
    assert case.graph.inputs[0].layout.expand == (0,) and case.tensors()[0][0].shape == tuple(SHAPES[rank])
