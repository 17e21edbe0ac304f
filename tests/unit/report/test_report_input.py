"""`numfuzz report` on bad or thin input: one line and exit 2, or a page that says what it found; the corpus untouched.

No compiler runs here: every case names a target that does not resolve, or the sweep is replaced.
"""

from __future__ import annotations

import torch

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import save_case
from numfuzz.judge.execute import Outcome
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.report import build, plots
from numfuzz.report.data import Sweep, SweepPoint
from numfuzz.run_spec import RunSpec

GRAPH = Graph((TensorSpec((2,), "fp16"),), (Node.make("tanh", [0]),), (1,))
SEGFAULT_LOG = """\
Fatal Python error: Segmentation fault

Thread 0x01 (most recent call first):
  File "threading.py", line 982 in run

Current thread 0x02 (most recent call first):
  File "ctypes/__init__.py", line 519 in string_at
  File "plugin.py", line 30 in _segfault
  File "worker.py", line 89 in serve

Extension modules: numpy, torch
"""


def case(target: str, outcome: Outcome, value: float, **extra) -> Case:
    x = torch.tensor([0.5, value], dtype=torch.float16)
    return Case.from_tensors(GRAPH, [[x]], RunSpec(target, imports=("/plugins/gone.py",)), result=outcome.to_json(), extra=extra)


def accuracy_outcome() -> Outcome:
    errors = OutputErrors(0, "fp16", 2, 0.2, 0.1, 15.8, 8.0, 1e-4, 5e-3, 1e-3, 2e-2, 2, 0, 0, 1, "less_accurate")
    return Outcome(Verdict.LESS_ACCURATE, "", [errors])


def snapshot(root):
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file() and "report" not in p.parts}


def test_missing_folder_and_bad_output_fail_in_one_line(cli, tmp_path):
    for args in ([tmp_path / "nope"], [tmp_path / "file.txt"], [tmp_path, "-o", tmp_path / "findings" / "r"], [tmp_path, "-o", tmp_path / "file.txt"]):
        (tmp_path / "file.txt").write_text("x")
        result = cli("report", *args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("numfuzz: error: ") and "Traceback" not in result.output
    assert not (tmp_path / "findings").exists()


def test_empty_corpus_gives_a_page_that_says_so(cli, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    result = cli("report", corpus)
    assert result.exit_code == 0, result.output
    page = (corpus / "report" / "index.html").read_text()
    assert "No accuracy findings" in page and "No crashes, hangs or other failures" in page
    assert [p.name for p in corpus.iterdir()] == ["report"]


def test_crash_only_corpus_with_a_corrupt_file(cli, tmp_path):
    corpus = tmp_path / "corpus"
    findings = corpus / "findings"
    save_case(case("plugin:segv", Outcome(Verdict.SEGFAULT, "worker killed by SIGSEGV"), 1.0, worker_log=SEGFAULT_LOG), findings)
    save_case(case("plugin:raise", Outcome(Verdict.CRASH_COMPILE, "prepare raised RuntimeError: planted"), 2.0), findings)
    good = save_case(case("plugin:raise", Outcome(Verdict.CRASH_COMPILE, "prepare raised RuntimeError: planted"), 3.0), findings)
    (findings / "0000000000000bad.json").write_text(good.read_text()[:200])
    before = snapshot(corpus)
    result = cli("report", corpus, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "0000000000000bad.json" in result.output and "Traceback" not in result.output
    page = (tmp_path / "out" / "index.html").read_text()
    assert page.count('<section class="crash') == 2 and '<section class="finding' not in page
    assert "Skipped files" in page and "0000000000000bad.json" in page
    assert "string_at" in page and "Extension modules" not in page  # faulthandler's innermost frames, not its tail
    assert "No repro written: target plugin:segv is unavailable" in page
    assert snapshot(corpus) == before


def test_unavailable_target_is_a_note_with_the_import_it_needs(cli, tmp_path):
    corpus = tmp_path / "corpus"
    save_case(case("plugin:gone", accuracy_outcome(), 0.25), corpus / "minimized")
    result = cli("report", corpus)
    assert result.exit_code == 0, result.output
    page = (corpus / "report" / "index.html").read_text()
    assert page.count('<section class="finding') == 1 and 'class="plot"' not in page
    assert "No plot: not swept: target plugin:gone is unavailable" in page and "--import /plugins/gone.py" in page
    assert "cause: not analysed" in page


def test_a_failing_plot_or_sweep_becomes_a_note(monkeypatch):
    from numfuzz.report import sweep as sweep_module
    from numfuzz.report.data import GroupView

    swept = Sweep(0, "fp16", 0, 0, [SweepPoint(0, 1.0, 1.0, 0.1, 9.0)])
    monkeypatch.setattr(sweep_module, "sweep_case", lambda *a: swept)
    monkeypatch.setattr(plots, "sweep_svg", lambda *a: (_ for _ in ()).throw(RuntimeError("no fonts")))
    view = GroupView("g", "sig", "t", "less_accurate", 1, 1.0)
    build._sweep_and_plot(view, None, None, "cpu")
    assert view.sweep is swept and view.plot_svg is None and view.plot_note == "the plot failed: RuntimeError: no fonts"

    def broken(*args):
        raise ValueError("numfuzz bug")

    monkeypatch.setattr(sweep_module, "sweep_case", broken)
    view = GroupView("g", "sig", "t", "less_accurate", 1, 1.0)
    build._sweep_and_plot(view, None, None, "cpu")
    assert view.sweep is None and view.plot_note == "the sweep failed: ValueError: numfuzz bug"
