"""A model sweep's page: one row per model and length, one column per target, mode and precision, each cell coloured by its
verdict and linking to its explanation (and a finding to its case)."""

from __future__ import annotations

from numfuzz.report.models import css_of, page_data, write_page


def _record(model, target, mode, verdict, finding=False, known="", positions=32, case=None):
    key = f"{model} | {target} | bf16 | {mode} | {positions}"
    return key, {"key": key, "model": model, "target": target, "precision": "bf16", "mode": mode, "positions": positions, "verdict": verdict,
                 "finding": finding, "known": known, "explain": f"cells/{model[3:]}-{target}-{mode}.txt", "case": case, "bits_lost": 3.5 if finding else 0.0}  # fmt: skip


def test_each_cell_is_coloured_by_its_verdict_and_links_to_its_explanation(tmp_path):
    results = dict(
        [
            _record("hf:llama", "inductor", "forward", "less_accurate", finding=True, case="findings/x.json"),
            _record("hf:llama", "inductor", "train", "within_rounding"),
            _record("hf:gpt2", "inductor", "forward", "less_accurate", known="inductor-cast-elision"),
            _record("hf:gpt2", "thunderfx:torchcompile", "train", "crash_run", finding=True),
            _record("hf:gpt2", "thunderfx:torchcompile", "forward", "equal", finding=True),  # the model equal, a module alone worse
        ]
    )
    data = page_data(results, {"torch": "2.9.1", "thunder": "0.2.6"})
    columns = [("inductor", "forward"), ("inductor", "train"), ("thunderfx:torchcompile", "forward"), ("thunderfx:torchcompile", "train")]
    assert [(c.target, c.mode) for c in data["columns"]] == columns
    rows = {r["name"]: r["cells"] for r in data["rows"]}
    assert [c.css if c else None for c in rows["llama (32 positions)"]] == ["finding", "benign", None, None]
    assert [c.css if c else None for c in rows["gpt2 (32 positions)"]] == ["known", None, "finding", "crash"]
    assert rows["llama (32 positions)"][0].link == "cells/llama-inductor-forward.txt" and rows["llama (32 positions)"][0].case == "findings/x.json"
    assert data["findings"] == 3 and css_of({"verdict": "equal"}) == "clean" and css_of({"verdict": "invalid"}) == "invalid"
    html = write_page(tmp_path, results).read_text()
    assert 'href="cells/llama-inductor-forward.txt"' in html and 'href="findings/x.json"' in html and "torch 2.9.1" not in html  # no versions file here
