"""The zoo's record of what maps: every model maps at least 90% of its floating calls (`scripts/zoo_coverage.py`)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

from numfuzz.model.coverage import Coverage

ROOT = Path(__file__).resolve().parents[3]
ZOO = ROOT / "numfuzz" / "data" / "zoo"


def _script():
    spec = importlib.util.spec_from_file_location("zoo_coverage", ROOT / "scripts" / "zoo_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_zoo_model_maps_at_least_nine_tenths_of_its_floating_calls():
    rows = _script().rows(ZOO)
    assert len(rows) >= 20
    low = [(model, step, f"{c.share:.0%}", dict(c.missing)) for model, step, c in rows if c.share < 0.9]
    assert not low, low


def test_the_share_leaves_integer_and_mask_calls_out_and_counts_pass_throughs(tmp_path):
    c = Coverage(calls=20, mapped=8, passed=1, missing=Counter({"sort": 1}), bookkeeping=10)
    assert (c.floating, c.share) == (10, 0.9)
    (tmp_path / "m-forward.json").write_text(json.dumps({"step": "forward", "coverage": c.to_json()}))
    ((model, step, back),) = _script().rows(tmp_path)
    assert (model, step, back.share, back.missing) == ("m", "forward", 0.9, Counter({"sort": 1}))


def test_the_script_exits_1_below_its_minimum_and_2_without_a_zoo(tmp_path, monkeypatch, capsys):
    c = Coverage(calls=4, mapped=1, passed=0, missing=Counter({"sort": 3}))
    (tmp_path / "m-train.json").write_text(json.dumps({"step": "train", "coverage": c.to_json()}))
    script = _script()
    monkeypatch.setattr("sys.argv", ["zoo_coverage", "--zoo", str(tmp_path), "--min", "0.9"])
    assert script.main() == 1 and "| m | train | 4 | 1 | 25% | sort x3 |" in capsys.readouterr().out
    monkeypatch.setattr("sys.argv", ["zoo_coverage", "--zoo", str(tmp_path / "none")])
    assert script.main() == 2
