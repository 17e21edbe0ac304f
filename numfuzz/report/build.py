"""The report, start to end: read the corpus, sweep and plot each group, write repros, render, write the page.

Everything that can fail for one group (target, sweep, plot, repro) becomes a note on that
group's section; the page is always written. Only the output folder is written to: the
corpus is read, never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from tqdm import tqdm

import numfuzz
from numfuzz.corpus.case import Case, recorded_outcome
from numfuzz.corpus.store import write_atomic
from numfuzz.program.ops import OPS
from numfuzz.report import plots
from numfuzz.report.campaigns import read_campaigns
from numfuzz.report.collect import CollectedGroup, collect_groups, error_files, relative_link
from numfuzz.report.data import GroupView, ReportData
from numfuzz.report.render import render

REPRO_DIR = "repro"


@dataclass
class ReportResult:
    page: Path
    data: ReportData
    skipped: list[str] = field(default_factory=list)


def _one_line(exc: BaseException) -> str:
    lines = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


class _Targets:
    """Targets resolved once per spec; an unavailable one carries the reason, for the notes."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[Any, str]] = {}

    def get(self, spec: str, case: Case) -> tuple[Any, str]:
        if spec not in self._found:
            self._found[spec] = self._resolve(spec)
        target, why = self._found[spec]
        recorded = list(case.run.imports)
        if target is None and recorded:
            why += f" (the case was found with {' '.join('--import ' + r for r in recorded)}: give numfuzz report the same)"
        return target, why

    @staticmethod
    def _resolve(spec: str) -> tuple[Any, str]:
        from numfuzz.targets import resolve

        try:
            target = resolve(spec)
            ok, why = target.available()
        except Exception as exc:  # an unknown family, a bad spec, a plugin that fails to load
            return None, f"target {spec} is unavailable: {_one_line(exc)}"
        return (target, "") if ok else (None, f"target {spec} is unavailable: {why}")


def build_report(corpus: Path, out_dir: Path, device: str, imports: Sequence[str] = (), sweep: bool = True, progress: bool | None = None) -> ReportResult:
    """Write `out_dir/index.html` (and `out_dir/repro/`) for the corpus under `corpus`.

    `imports` are the --import specs already loaded (files absolute), for the repro scripts.
    `progress` None shows a progress bar only on a terminal.
    """
    corpus, out_dir = Path(corpus), Path(out_dir)
    groups, skipped = collect_groups(corpus, out_dir)
    data = ReportData(
        corpus=str(corpus),
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        numfuzz_version=numfuzz.__version__,
        campaigns=read_campaigns(corpus),
        groups=[g.view for g in groups],
        skipped=skipped,
        numfuzz_errors=error_files(corpus, out_dir),
    )
    data.versions = _distinct([g.versions for g in data.groups])
    found_on = [c.device for c in data.campaigns] + [g.versions.get("device", "") for g in data.groups]
    parts = [", ".join(dict.fromkeys(d for d in found_on if d))] + ([f"swept here on {device}"] if sweep and data.findings else [])
    data.device = "; ".join(p for p in parts if p)
    if not sweep:
        data.notes.append("Made with --no-sweep: no error plots.")
    targets = _Targets()
    bar = tqdm(groups, desc="report", unit="group", disable=None if progress is None else not progress)
    for group in bar:
        bar.set_postfix_str(group.view.signature[:60])
        _fill_group(group, targets, device, out_dir, list(imports), sweep)
    _summary_plots(data)
    page = out_dir / "index.html"
    write_atomic(page, render(data))
    return ReportResult(page, data, skipped)


def _fill_group(group: CollectedGroup, targets: _Targets, device: str, out_dir: Path, imports: list[str], sweep: bool) -> None:
    view, case = group.view, group.case
    target, why = targets.get(case.target, case)
    kills = recorded_outcome(case).verdict.kills_process
    if not view.is_crash:
        if not sweep:
            view.plot_note = "made with --no-sweep"
        elif target is None:
            view.plot_note = f"not swept: {why}"
        elif kills:
            view.plot_note = f"not swept: the finding killed its process ({recorded_outcome(case).verdict.value}); it is only run in a worker of its own"
        else:
            _sweep_and_plot(view, case, target, device)
    _write_repro(view, case, target, why, device, out_dir, imports, kills)


def _sweep_and_plot(view: GroupView, case: Case, target: Any, device: str) -> None:
    from numfuzz.report.sweep import SweepError, sweep_case

    try:
        view.sweep = sweep_case(case, target, device)
    except SweepError as exc:
        view.plot_note = f"not swept: {exc}"
        return
    except Exception as exc:  # numfuzz's own bug or a target that raises oddly: one group's note, not the report's end
        view.plot_note = f"the sweep failed: {_one_line(exc)}"
        return
    try:
        view.plot_svg = plots.sweep_svg(view.sweep, view.target)
    except Exception as exc:
        view.plot_note = f"the plot failed: {_one_line(exc)}"


def _write_repro(view: GroupView, case: Case, target: Any, why: str, device: str, out_dir: Path, imports: list[str], kills: bool) -> None:
    from numfuzz.repro.writer import write_repro

    if target is None:
        view.repro_note = f"No repro written: {why}."
        return
    recorded = list(case.run.imports)
    # A finding that killed its process is not run here: the script and issue carry its recorded outcome.
    outcome = recorded_outcome(case) if kills else None
    try:
        files = write_repro(case, target, device, out_dir / REPRO_DIR, list(dict.fromkeys(recorded + imports)), outcome)
    except Exception as exc:
        view.repro_note = f"No repro written: {_one_line(exc)}"
        return
    view.repro = [relative_link(files.script, out_dir), relative_link(files.issue, out_dir)]
    view.repro[0].label = f"repro script ({files.script.name})"
    view.repro[1].label = f"issue text ({files.issue.name})"
    if kills:
        view.repro_note = "Written from the recorded outcome; the script kills its process as the campaign's worker died."
    elif not files.outcome.verdict.is_finding:
        view.repro_note = f"Here the case runs as {files.outcome.verdict.value}: not a finding on this machine, so the script passes."


def _summary_plots(data: ReportData) -> None:
    rates = [r for c in data.campaigns for r in c.rates]
    coverage: dict[str, dict[str, int]] = {}
    for campaign in data.campaigns:
        for target, counts in campaign.coverage.items():
            merged = coverage.setdefault(target, {})
            for op, n in counts.items():
                merged[op] = merged.get(op, 0) + n
    if rates:
        try:
            data.rate_svg = plots.rate_svg(rates)
        except Exception as exc:
            data.rate_note = f"the plot failed: {_one_line(exc)}"
    else:
        data.rate_note = "no campaign log with timed cases"
    reached = [c for c in data.campaigns if c.reach_trend]
    if reached:
        try:
            data.reach_svg = plots.reach_svg({c.name: c.reach_trend for c in reached}, _summed(c.reach_by_op for c in reached))
        except Exception as exc:
            data.notes.append(f"the compiler-lines plot failed: {_one_line(exc)}")
    if coverage:
        try:
            data.coverage_svg = plots.coverage_svg(coverage, sorted(OPS))
        except Exception as exc:
            data.coverage_note = f"the plot failed: {_one_line(exc)}"
    else:
        data.coverage_note = "no coverage record"


def _summed(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in counts:
        for key, n in one.items():
            total[key] = total.get(key, 0) + n
    return total


def _distinct(version_sets: list[dict[str, str]]) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for versions in version_sets:
        shown = {k: v for k, v in versions.items() if k != "device"}
        if shown and shown not in found:
            found.append(shown)
    return found
