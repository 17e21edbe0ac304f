"""Campaign folders read into plain data: identity, counters, coverage, and graphs/min from the logs.

Each `campaign/<seed-shard>/` folder is one campaign (a seed and a shard); its runs (resumes)
are told apart in its log. Every file is optional: what cannot be read becomes a problem line
for the page, never an exception. Nothing here writes.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from numfuzz.campaign.log_format import LOG_LINE
from numfuzz.report.data import CampaignView, RunRate

_RUN_START = re.compile(r"^campaign \S+ run (\d+):")
# A case that came back: an ordinary result, a finding, a lost case, or numfuzz's own failure.
_CASE_DONE = re.compile(r"^(?:case \d+ on \S+: |finding: .* \(case \d+\)|numfuzz failed on case \d+ )")
RATE_BINS = 24  # bins per run in the graphs/min plot
MIN_BIN_S = 5.0


def read_campaigns(corpus: Path) -> list[CampaignView]:
    """One view per folder under `corpus/campaign/`, in name order; [] when there is none."""
    root = Path(corpus) / "campaign"
    if not root.is_dir():
        return []
    return [read_campaign(folder) for folder in sorted(p for p in root.iterdir() if p.is_dir())]


def read_campaign(folder: Path) -> CampaignView:
    view = CampaignView(folder.name)
    state = _read_json(folder / "state.json", view.problems)
    stats_lines = _read_stats(folder / "fuzzer_stats", view.problems)
    identity = state.get("campaign", {}) if isinstance(state.get("campaign"), dict) else {}
    stats = state.get("stats", {}) if isinstance(state.get("stats"), dict) else {}
    view.seed = str(identity.get("seed", stats_lines.get("seed", "")))
    view.shard = str(identity.get("shard", stats_lines.get("shard", "")))
    targets = identity.get("targets") or stats_lines.get("targets", "").split()
    view.targets = [str(t) for t in targets] if isinstance(targets, list) else []
    view.device = str(identity.get("device", stats_lines.get("device", "")))
    view.samples = str(identity.get("samples", stats_lines.get("samples_per_graph", "")))
    view.runs = _int(state.get("runs", stats_lines.get("runs")))
    view.graphs_done = _int(state.get("graphs_done", stats_lines.get("graphs_done")))
    view.cases = _int(stats.get("cases", stats_lines.get("cases_done")))
    view.findings = _int(stats.get("findings", stats_lines.get("findings")))
    view.errors = _int(stats.get("errors", stats_lines.get("errors")))
    view.graphs_per_min = stats_lines.get("graphs_per_min", "")
    view.total_time_s = _float(stats.get("elapsed_s", stats_lines.get("total_time")))
    restarts = stats.get("restarts", {})
    view.restarts = sum(_int(n) for n in restarts.values()) if isinstance(restarts, dict) else _int(stats_lines.get("worker_restarts"))
    view.verdicts = _counts(stats.get("verdicts"))
    coverage = _counts(stats.get("coverage"))
    if not coverage and (folder / "coverage.json").exists():
        coverage = _counts(_read_json(folder / "coverage.json", view.problems))
    view.coverage = coverage
    reach = stats.get("reach") if isinstance(stats.get("reach"), dict) else {}
    try:
        view.reach_trend = [(int(g), float(s), int(n), int(k)) for g, s, n, k in reach.get("trend") or ()]
        view.reach_by_op = {str(op): int(n) for op, n in (reach.get("by_op") or {}).items()}
    except (TypeError, ValueError):
        view.problems.append(f"{folder / 'state.json'}: unreadable compiler-line record")
    view.rates = rates_from_log(_log_lines(folder, view.problems), max(1, len(view.targets)), folder.name)
    return view


def _log_lines(folder: Path, problems: list[str]) -> list[str]:
    """numfuzz.log and its rotated predecessors, oldest first (the timestamps order them anyway)."""
    lines: list[str] = []
    for path in sorted(folder.glob("numfuzz*.log"), key=lambda p: (p.name == "numfuzz.log", p.name)):
        try:
            lines.extend(path.read_text(errors="replace").splitlines())
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc}")
    return lines


def rates_from_log(lines: Iterable[str], n_targets: int, name: str) -> list[RunRate]:
    """Graphs/min over each run, binned; a graph is one case per target, so cases / n_targets."""
    runs: list[tuple[str, datetime, list[datetime]]] = []
    for line in lines:
        match = LOG_LINE.match(line)
        if not match:
            continue
        try:
            when = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S.%f")
        except ValueError:
            continue
        message = match.group(2)
        started = _RUN_START.match(message)
        if started:
            runs.append((f"{name} run {started.group(1)}", when, []))
        elif runs and _CASE_DONE.match(message):
            runs[-1][2].append(when)
    return [rate for label, start, done in runs if (rate := _binned(label, start, done, n_targets)) is not None]


def _binned(label: str, start: datetime, done: list[datetime], n_targets: int) -> RunRate | None:
    if len(done) < 2:
        return None
    offsets = sorted((t - start).total_seconds() for t in done)
    width = max(MIN_BIN_S, offsets[-1] / RATE_BINS)
    bins = int(offsets[-1] // width) + 1
    counts = [0] * bins
    for offset in offsets:
        counts[min(int(offset // width), bins - 1)] += 1
    minutes = [(i + 0.5) * width / 60.0 for i in range(bins)]
    return RunRate(label, minutes, [c / n_targets / (width / 60.0) for c in counts])


def _read_json(path: Path, problems: list[str]) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{path}: unreadable ({type(exc).__name__}: {exc})")
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path}: not a JSON object")
        return {}
    return data


def _read_stats(path: Path, problems: list[str]) -> dict[str, str]:
    """fuzzer_stats: AFL-style `key : value` lines."""
    if not path.exists():
        return {}
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        problems.append(f"{path}: cannot read: {exc}")
        return {}
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def _counts(data: Any) -> dict[str, dict[str, int]]:
    """{outer: {inner: count}} from JSON, leaving out anything that is not shaped so."""
    if not isinstance(data, dict):
        return {}
    return {str(k): {str(i): _int(n) for i, n in v.items()} for k, v in data.items() if isinstance(v, dict)}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
