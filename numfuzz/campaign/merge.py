"""Corpora from sharded runs merged into one: each case file copied once, journals kept per shard, stats summed.

Case files are named by content hash, so a name already in the output with the same bytes is the
same case (nothing to do), and with other bytes it is a conflict: reported, the output's copy kept.
A file that does not parse as a case is reported and never copied. Each shard's campaign folder
(journal, stats, logs) is copied under the output's `campaign/`, its name being unique per seed,
shard and settings, and `merge_stats.json` sums the counters of every journal in the output.
Merging the same inputs twice changes nothing the second time.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from numfuzz.campaign.stats import CampaignStats
from numfuzz.corpus.case import Case, CaseError
from numfuzz.corpus.grouping import CASE_FOLDERS as GROUPED_FOLDERS
from numfuzz.corpus.grouping import Group, finding_id, group_corpus
from numfuzz.corpus.store import iter_cases, load_case, write_atomic

CASE_FOLDERS = ("findings", "minimized", "rounding", "errors")
CAMPAIGN_FOLDER = "campaign"
STATS_FILE = "merge_stats.json"
SKIPPED_IN_CAMPAIGN = {"lock"}  # a run's lock file means nothing in a merged corpus
COUNTERS = ("cases", "samples", "findings", "errors", "minimized", "minimize_failed")


class MergeError(ValueError):
    """An input that is not a corpus; the message is one line for the user."""


@dataclass
class MergeReport:
    copied: list[Path] = field(default_factory=list)  # files written to the output
    unchanged: int = 0  # files already there with the same bytes
    same_case: list[Path] = field(default_factory=list)  # minimised cases another shard reached too: one file kept
    conflicts: list[str] = field(default_factory=list)  # one line each; the output's copy was kept
    corrupt: list[str] = field(default_factory=list)  # one line each; never copied
    campaigns: dict[str, dict[str, Any]] = field(default_factory=dict)  # the output's journals: name -> seed, shard, graphs done
    stats: CampaignStats = field(default_factory=CampaignStats)
    groups: list[Group] = field(default_factory=list)
    unminimized: list[Group] = field(default_factory=list)  # groups with no minimised case in the output

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.corrupt

    @property
    def graphs_done(self) -> int:
        return sum(int(c.get("graphs_done", 0)) for c in self.campaigns.values())


def is_corpus(directory: Path) -> bool:
    return any((Path(directory) / name).is_dir() for name in (*CASE_FOLDERS, CAMPAIGN_FOLDER))


def merge_corpora(sources: list[Path], out: Path) -> MergeReport:
    """Merge the corpora `sources` into `out` (created if need be); see the module's docstring."""
    for source in sources:
        if not Path(source).is_dir():
            raise MergeError(f"{source}: no such folder")
        if not is_corpus(source):
            raise MergeError(f"{source}: not a numfuzz corpus (no {', '.join(CASE_FOLDERS)} or {CAMPAIGN_FOLDER} folder)")
    out = Path(out)
    report = MergeReport()
    for source in sources:
        for folder in CASE_FOLDERS:
            for path in iter_cases(Path(source) / folder):
                _copy(path, out / folder / path.name, report, _case_problem, same_case_ok=folder == "minimized")
        _merge_campaigns(Path(source) / CAMPAIGN_FOLDER, out / CAMPAIGN_FOLDER, report)
    _write_stats(out, report)
    if any((out / name).is_dir() for name in GROUPED_FOLDERS):  # else group_corpus would take every JSON file for a case
        report.groups, problems = group_corpus(out)
        report.corrupt += [p for p in problems if p not in report.corrupt]
    minimized = _minimized_findings(out / "minimized")
    report.unminimized = [g for g in report.groups if not g.findings & minimized]
    return report


# --- files --------------------------------------------------------------------------------------


def _case_problem(path: Path, data: bytes) -> str | None:
    try:
        Case.from_json(json.loads(data.decode())).tensors()
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path}: not valid JSON (truncated or corrupt?): {exc}"
    except CaseError as exc:
        return f"{path}: {exc}"
    return None


def _json_problem(path: Path, data: bytes) -> str | None:
    try:
        json.loads(data.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path}: not valid JSON (truncated or corrupt?): {exc}"
    return None


def _copy(source: Path, dest: Path, report: MergeReport, problem_of: Callable[[Path, bytes], str | None] | None, same_case_ok: bool = False) -> None:
    """Copy one file unless it is corrupt, or the output already has that name (same bytes: fine).

    `same_case_ok`: other bytes for the same case are no conflict. Shards that minimise findings of
    one signature often reach the same smallest case, each file embedding its own original.
    """
    try:
        data = source.read_bytes()
    except OSError as exc:
        report.corrupt.append(f"{source}: cannot read: {exc}")
        return
    problem = problem_of(source, data) if problem_of is not None else None
    if problem is not None:
        report.corrupt.append(problem)
        return
    if dest.exists():
        try:
            same = dest.read_bytes() == data
        except OSError:
            same = False
        if same:
            report.unchanged += 1
        elif same_case_ok and _same_case(source, dest):
            report.same_case.append(dest)
        else:
            report.conflicts.append(f"{dest}: differs from {source}; kept the output's copy")
        return
    write_atomic(dest, data)
    report.copied.append(dest)


def _same_case(a: Path, b: Path) -> bool:
    try:
        return load_case(a).content_hash() == load_case(b).content_hash()
    except CaseError:
        return False


# --- campaign folders and stats ------------------------------------------------------------------


def _journal(path: Path) -> dict[str, Any]:
    """A journal's contents, or CaseError with one line saying why it cannot be used."""
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("stats"), dict):
            raise ValueError("no stats")
        CampaignStats.from_json(data["stats"])
        return data
    except (OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError) as exc:
        raise CaseError(f"{path}: unreadable journal ({type(exc).__name__}: {exc})") from None


def _merge_campaigns(source: Path, dest: Path, report: MergeReport) -> None:
    for folder in sorted(p for p in source.iterdir() if p.is_dir()) if source.is_dir() else ():
        state = folder / "state.json"
        try:
            _journal(state)
        except CaseError as exc:
            report.corrupt.append(f"{exc}; campaign folder not merged")
            continue
        target = dest / folder.name
        try:
            differs = (target / "state.json").exists() and (target / "state.json").read_bytes() != state.read_bytes()
        except OSError:
            differs = True
        if differs:  # another run of the same shard: its logs and stats belong with its own journal
            report.conflicts.append(f"{target}: journal differs from {state}; kept the output's campaign folder")
            continue
        for path in sorted(folder.iterdir()):
            if path.is_file() and not path.name.startswith(".") and path.name not in SKIPPED_IN_CAMPAIGN:
                _copy(path, target / path.name, report, _json_problem if path.suffix == ".json" else None)


def combine_stats(parts: list[CampaignStats]) -> CampaignStats:
    """The sum of several campaigns' cumulative counters."""
    total = CampaignStats()
    for part in parts:
        for target, counts in part.verdicts.items():
            total.verdicts.setdefault(target, Counter()).update(counts)
        for target, counts in part.coverage.items():
            total.coverage.setdefault(target, Counter()).update(counts)
        for name in COUNTERS:
            setattr(total, name, getattr(total, name) + getattr(part, name))
        total.restarts.update(part.restarts)
        total.kinds.update(part.kinds)
        for phase, seconds in part.cpu.items():
            total.cpu[phase] = total.cpu.get(phase, 0.0) + seconds
        total.busy_s += part.busy_s
        total.elapsed_s += part.elapsed_s
    return total


def _write_stats(out: Path, report: MergeReport) -> None:
    parts = []
    folder = out / CAMPAIGN_FOLDER
    for state in sorted(folder.glob("*/state.json")) if folder.is_dir() else ():
        try:
            data = _journal(state)
        except CaseError as exc:
            report.corrupt.append(str(exc))
            continue
        identity = data.get("campaign", {})
        report.campaigns[state.parent.name] = {"seed": identity.get("seed"), "shard": identity.get("shard"), "graphs_done": data.get("graphs_done", 0)}
        parts.append(CampaignStats.from_json(data["stats"]))
    if not parts:
        return
    report.stats = combine_stats(parts)
    stats = report.stats.to_json()
    stats["elapsed_s"] = round(report.stats.elapsed_s, 3)  # to_json adds this process's run time
    body = json.dumps({"campaigns": report.campaigns, "graphs_done": report.graphs_done, "stats": stats}, indent=1, sort_keys=True) + "\n"
    path = out / STATS_FILE
    if not path.exists() or path.read_text() != body:  # an unchanged merge leaves the file untouched
        write_atomic(path, body)


def _minimized_findings(folder: Path) -> set[str]:
    """Ids of the findings that have a minimised version here."""
    found = set()
    for path in iter_cases(folder) if folder.is_dir() else ():
        try:
            found.add(finding_id(load_case(path)))
        except CaseError:
            continue  # reported by group_corpus
    return found
